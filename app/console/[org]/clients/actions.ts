'use server';
import { z } from 'zod';
import { findOrgApp } from '@/lib/clients/apps';
import { ClientMetadataRefusal, registerExternalClient, revokeClientAtAppCommand } from '@/lib/clients/client-commands';
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
    const registered = await registerExternalClient({ tx, org: access.org, audit }, app, { label: input.label, redirectUris: uris }).catch((error: unknown) => {
      throw error instanceof ClientMetadataRefusal ? new ActionRefusal(error.field === 'label' ? `Label: ${error.message}.` : `Redirect URIs: ${error.message}.`) : error;
    });
    const { clientId } = registered;
    return {
      status: 'ok',
      message: `Registered ${registered.label} for ${app.app.name}. It is a public client: give it this client ID (there is no secret; it uses PKCE).`,
      secret: [`client_id=${clientId}`, `resource=${app.app.publishOrigin}/api/mcp`],
    };
  },
);

export const revokeClientAction = orgAction(
  { permission: 'clients.manage', input: z.object({ appId, clientId: z.string().min(1).max(2000), confirmed: z.literal('yes', { error: 'confirm the revocation' }) }) },
  async ({ tx, input, access, audit }) => {
    const app = await findOrgApp(tx, access.org.id, input.appId);
    if (!app) throw new ActionRefusal('This app does not exist in this organization.');
    const outcome = await revokeClientAtAppCommand({ tx, org: access.org, audit }, app, input.clientId);
    return { status: 'ok', message: `Revoked at ${app.app.name}: ${outcome.grantsEnded} live connection(s) ended. Access tokens already issued expire within 10 minutes.` };
  },
);
