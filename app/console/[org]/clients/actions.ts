'use server';
import { z } from 'zod';
import { findOrgApp } from '@/lib/clients/apps';
import { ClientMetadataRefusal, registerExternalClient, revokeClientAtAppCommand } from '@/lib/clients/client-commands';
import { localized, textIn, type Translator } from '@/lib/i18n/catalogs';
import { getT, requestLocale } from '@/lib/i18n/server';
import { ActionRefusal, orgAction } from '../../_lib/action';

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
  },
  async ({ tx, input, access, audit }) => {
    const app = await findOrgApp(tx, access.org.id, input.appId);
    if (!app) throw new ActionRefusal(localized('refusals.appNotInOrg'));
    const uris = input.redirectUris.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
    const t = await getT('console.clients');
    const locale = await requestLocale();
    const registered = await registerExternalClient({ tx, org: access.org, audit }, app, { label: input.label, redirectUris: uris }).catch((error: unknown) => {
      if (!(error instanceof ClientMetadataRefusal)) throw error;
      const problem = error.text ? textIn(error.text, locale) : error.message;
      throw new ActionRefusal(error.field === 'label' ? t('errors.label', { problem }) : t('errors.redirectUris', { problem }));
    });
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
    if (!app) throw new ActionRefusal(localized('refusals.appNotInOrg'));
    const outcome = await revokeClientAtAppCommand({ tx, org: access.org, audit }, app, input.clientId);
    return { status: 'ok', message: (await getT('console.clients'))('revoked', { app: app.app.name, count: outcome.grantsEnded }) };
  },
);
