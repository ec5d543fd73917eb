'use server';
import { z } from 'zod';
import { findOrgApp } from '@/lib/clients/apps';
import { registerExternalClient, revokeClientAtAppCommand } from '@/lib/clients/client-commands';
import { localized, type Translator } from '@/lib/i18n/catalogs';
import { getT } from '@/app/_lib/i18n/server';
import { actionRefusal, orgAction } from '../../_lib/action';

const appId = (t: Translator) => z.string().uuid(t('console.clients.errors.appId'));

export const createExternalClientAction = orgAction(
  {
    permission: 'clients.manage',
    input: (t) =>
      z.object({
        appId: appId(t),
        label: z.string().trim().min(1, t('console.clients.errors.labelRequired')).max(80, t('console.clients.errors.labelLength')),
        redirectUris: z.string().max(20_000, t('console.clients.errors.redirectUrisLength')),
      }),
    // The metadata's refusal (RFC 7591's codes) said as the form's: which field, and the problem.
    refused: async (refusal, problem) => {
      if (refusal.code !== 'invalid_client_metadata' && refusal.code !== 'invalid_redirect_uri') return undefined;
      const t = await getT('console.clients');
      return { message: refusal.code === 'invalid_client_metadata' ? t('errors.label', { problem }) : t('errors.redirectUris', { problem }) };
    },
  },
  async ({ tx, input, access, audit }) => {
    const app = await findOrgApp(tx, access.org.id, input.appId);
    if (!app) throw actionRefusal(localized('refusals.appNotInOrg'));
    const uris = input.redirectUris.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
    const t = await getT('console.clients');
    const registered = await registerExternalClient({ tx, org: access.org, audit }, app, { label: input.label, redirectUris: uris });
    const { clientId } = registered;
    return {
      status: 'ok',
      message: t('registered', { label: registered.label, app: app.app.name }),
      secret: [`client_id=${clientId}`, `resource=${app.app.publishOrigin}/api/mcp`],
    };
  },
);

export const revokeClientAction = orgAction(
  {
    permission: 'clients.manage',
    input: (t) => z.object({ appId: appId(t), clientId: z.string().min(1).max(2000), confirmed: z.literal('yes', { error: t('console.action.confirm.revocation') }) }),
  },
  async ({ tx, input, access, audit }) => {
    const app = await findOrgApp(tx, access.org.id, input.appId);
    if (!app) throw actionRefusal(localized('refusals.appNotInOrg'));
    const outcome = await revokeClientAtAppCommand({ tx, org: access.org, audit }, app, input.clientId);
    return { status: 'ok', message: (await getT('console.clients'))('revoked', { app: app.app.name, count: outcome.grantsEnded }) };
  },
);
