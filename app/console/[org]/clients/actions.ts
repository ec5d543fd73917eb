'use server';
import { z } from 'zod';
import { findOrgApp } from '@/lib/clients/apps';
import { revokeClientAtApp } from '@/lib/clients/binding';
import { createExternalClient, validateExternalClient } from '@/lib/clients/external';
import { ActionRefusal, orgAction } from '../../_lib/action';

const appId = z.string().uuid('choose an app');

export const createExternalClientAction = orgAction(
  {
    permission: 'clients.manage',
    input: z.object({ appId, label: z.string().trim().min(1, 'is required').max(80, 'must be at most 80 characters'), redirectUris: z.string().max(20_000) }),
  },
  async ({ tx, input, access, audit }) => {
    const app = await findOrgApp(tx, access.org.id, input.appId);
    if (!app) throw new ActionRefusal('This app does not exist in this organization.');
    const uris = input.redirectUris.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
    const valid = validateExternalClient(input.label, uris);
    if (!valid.ok) throw new ActionRefusal(valid.field === 'label' ? `Label: ${valid.message}.` : `Redirect URIs: ${valid.message}.`);
    const { clientId } = await createExternalClient(tx, { orgId: access.org.id, appId: app.app.id, label: valid.label, redirectUris: valid.redirectUris, native: valid.native });
    await audit({ action: 'client.external_registered', subject: { type: 'client', id: clientId, label: valid.label }, appId: app.app.id, clientId, details: { redirectUris: valid.redirectUris } });
    return {
      status: 'ok',
      message: `Registered ${valid.label} for ${app.app.name}. It is a public client: give it this client ID (there is no secret; it uses PKCE).`,
      secret: [`client_id=${clientId}`, `resource=${app.app.publishOrigin}/api/mcp`],
    };
  },
);

export const revokeClientAction = orgAction(
  { permission: 'clients.manage', input: z.object({ appId, clientId: z.string().min(1).max(2000), confirmed: z.literal('yes', { error: 'confirm the revocation' }) }) },
  async ({ tx, input, access, audit }) => {
    const app = await findOrgApp(tx, access.org.id, input.appId);
    if (!app) throw new ActionRefusal('This app does not exist in this organization.');
    const outcome = await revokeClientAtApp(tx, input.clientId, app.app.id);
    if (!outcome.ok) {
      throw new ActionRefusal(outcome.reason === 'not_linked' ? `This client is not a client of ${app.app.name}.` : 'This client is revoked at this app already.');
    }
    await audit({ action: 'client.revoked', subject: { type: 'client', id: input.clientId }, appId: app.app.id, clientId: input.clientId, details: { grantsEnded: outcome.grantsEnded } });
    return { status: 'ok', message: `Revoked at ${app.app.name}: ${outcome.grantsEnded} live connection(s) ended. Access tokens already issued expire within 10 minutes.` };
  },
);
