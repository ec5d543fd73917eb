'use server';
// Server actions of the Apps pages. Each: validate, authorize, one domain call, one audit event (orgAction).
import { redirect } from 'next/navigation';
import { z } from 'zod';
import { appEnvironmentLines } from '@/lib/clients/app-environment';
import { issueSurfaceSecret } from '@/lib/clients/surface';
import { addPostLogoutRedirectUri, addRedirectUri, assertPublishOriginAvailable, createApp, deleteApp, listApps, PublishOriginTaken, RedirectOriginTaken, removePostLogoutRedirectUri, removeRedirectUri, setAppDisabled, updateApp } from '@/lib/clients/apps';
import { validateAppOrigin, validateRedirectUri, validateSlug } from '@/lib/clients/validation';
import { freeSlug, slugFromName } from '@/lib/util/slug';
import { runtime } from '@/lib/runtime';
import { isUuid } from '@/lib/util/uuid';
import { postgresErrorCode } from '@/lib/db/client';
import { forgetNewCredentials, keepNewCredentials } from '../../_lib/new-credentials';
import { ActionRefusal, orgAction } from '../../_lib/action';
import { orgAppOrRefuse } from '../../_lib/org-app';

const origin = z.string().trim().transform((value, ctx) => {
  const result = validateAppOrigin(value);
  if (!result.ok) {
    ctx.addIssue({ code: 'custom', message: result.error });
    return z.NEVER;
  }
  return result.value;
});

const redirectUri = z.string().trim().transform((value, ctx) => {
  const result = validateRedirectUri(value);
  if (!result.ok) {
    ctx.addIssue({ code: 'custom', message: result.error });
    return z.NEVER;
  }
  return result.value;
});

const avatarUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((value) => value === '' || /^https:\/\/[^\s]+$/.test(value), 'must be an https URL, or empty')
  .transform((value) => (value === '' ? null : value));

const name = z.string().trim().min(1, 'is required').max(80, 'must be at most 80 characters');
/** An app's address in its organization: empty means "made from the name". */
const appSlug = z
  .string()
  .trim()
  .toLowerCase()
  .optional()
  .transform((value, ctx) => {
    if (!value) return undefined;
    const result = validateSlug(value);
    if (!result.ok) {
      ctx.addIssue({ code: 'custom', message: result.error });
      return z.NEVER;
    }
    return result.value;
  });

export const createAppAction = orgAction(
  {
    permission: 'apps.manage',
    input: z.object({ name, slug: appSlug, origin, redirectUri, authMethod: z.enum(['client_secret_basic', 'client_secret_post'], { error: 'choose how the app authenticates' }) }),
  },
  async ({ tx, input, access, audit }) => {
    const taken = new Set((await listApps(tx, access.org.slug)).map((row) => row.app.slug));
    // Chosen by the person: refused next to the field when another app has it, with a free one suggested. Left empty:
    // made from the name (cut to a valid length, never refused), with a number when another app has it.
    if (input.slug && taken.has(input.slug)) {
      throw new ActionRefusal(`The address ${input.slug} is taken by another app. ${freeSlug(input.slug, (candidate) => taken.has(candidate))} is free.`, 'slug');
    }
    const slug = input.slug || freeSlug(slugFromName(input.name), (candidate) => taken.has(candidate));
    await refuseTakenOrigin(() => assertPublishOriginAvailable(tx, { origin: input.origin, issuer: runtime().env.PORTICO_ISSUER }));
    const created = await refuseTakenOrigin(() => createApp(tx, { orgId: access.org.id, slug, name: input.name, publishOrigin: input.origin, redirectUris: [input.redirectUri], tokenEndpointAuthMethod: input.authMethod }));
    const surfaceSecret = await issueSurfaceSecret(tx, created.app.id, runtime().atRestKey);
    await audit({ action: 'app.created', subject: { type: 'app', id: created.app.id, label: created.app.name }, appId: created.app.id, clientId: created.clientId });
    // Shown once on the app's own page (sealed into a cookie for that page; never in the URL).
    const lines = appEnvironmentLines({ issuer: runtime().env.PORTICO_ISSUER, clientId: created.clientId, clientSecret: created.clientSecret, appIdentity: created.app.identity, surfaceSecret });
    await keepNewCredentials({ org: access.org.slug, appId: created.app.id, consoleSession: access.consoleSession, lines });
    return { status: 'ok', message: `Created ${created.app.name}.`, redirect: `/console/${access.org.slug}/apps/${created.app.id}` };
  },
);

const appId = z.string().uuid('is not an app');

/** An origin another app holds is a refusal the admin can act on, not a failure. */
async function refuseTakenOrigin<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof PublishOriginTaken) throw new ActionRefusal(error.message);
    if (error instanceof RedirectOriginTaken) throw new ActionRefusal(`${error.origin} is already the address of another app on Portico. Each app's redirect origins name its resource (${error.origin}/api/mcp), so they must be its own.`);
    // Two creations with the same address at once: the unique index lets one in; the other is told next to the field.
    if (postgresErrorCode(error) === '23505') throw new ActionRefusal('Another app took this address a moment ago. Choose another.', 'slug');
    throw error;
  }
}


export const updateAppAction = orgAction(
  { permission: 'apps.manage', input: z.object({ appId, name, origin, avatarUrl }) },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    await refuseTakenOrigin(() => assertPublishOriginAvailable(tx, { origin: input.origin, issuer: runtime().env.PORTICO_ISSUER, appId: listing.app.id }));
    await updateApp(tx, listing.app.id, { name: input.name, avatarUrl: input.avatarUrl, publishOrigin: input.origin });
    await audit({
      action: 'app.updated',
      subject: { type: 'app', id: listing.app.id, label: input.name },
      appId: listing.app.id,
      details: { name: input.name, publishOrigin: input.origin, avatarUrl: input.avatarUrl },
    });
    return { status: 'ok', message: 'Saved.' };
  },
);

export const addRedirectUriAction = orgAction(
  { permission: 'apps.manage', input: z.object({ appId, redirectUri }) },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    if (!(await refuseTakenOrigin(() => addRedirectUri(tx, listing.clientId, input.redirectUri)))) throw new ActionRefusal('This redirect URI is registered already.');
    await audit({ action: 'app.redirect_uri_added', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, clientId: listing.clientId, details: { uri: input.redirectUri } });
    return { status: 'ok', message: 'Redirect URI added.' };
  },
);

export const removeRedirectUriAction = orgAction(
  { permission: 'apps.manage', input: z.object({ appId, uri: z.string().min(1), confirmed: z.literal('yes', { error: 'confirm the removal' }) }) },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    if (!(await removeRedirectUri(tx, listing.clientId, input.uri))) throw new ActionRefusal('This redirect URI is not registered.');
    await audit({ action: 'app.redirect_uri_removed', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, clientId: listing.clientId, details: { uri: input.uri } });
    return { status: 'ok', message: 'Redirect URI removed.' };
  },
);

export const addPostLogoutRedirectUriAction = orgAction(
  { permission: 'apps.manage', input: z.object({ appId, postLogoutRedirectUri: redirectUri }) },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    if (!(await addPostLogoutRedirectUri(tx, listing.clientId, input.postLogoutRedirectUri))) throw new ActionRefusal('This sign-out return address is registered already.', 'postLogoutRedirectUri');
    await audit({ action: 'app.post_logout_redirect_uri_added', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, clientId: listing.clientId, details: { uri: input.postLogoutRedirectUri } });
    return { status: 'ok', message: 'Sign-out return address added.' };
  },
);

export const removePostLogoutRedirectUriAction = orgAction(
  { permission: 'apps.manage', input: z.object({ appId, uri: z.string().min(1), confirmed: z.literal('yes', { error: 'confirm the removal' }) }) },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    if (!(await removePostLogoutRedirectUri(tx, listing.clientId, input.uri))) throw new ActionRefusal('This sign-out return address is not registered.');
    await audit({ action: 'app.post_logout_redirect_uri_removed', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, clientId: listing.clientId, details: { uri: input.uri } });
    return { status: 'ok', message: 'Sign-out return address removed.' };
  },
);

export const setAppDisabledAction = orgAction(
  { permission: 'apps.manage', input: z.object({ appId, disabled: z.enum(['true', 'false']) }) },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    const disabled = input.disabled === 'true';
    if (!(await setAppDisabled(tx, listing.app.id, disabled))) throw new ActionRefusal(disabled ? 'This app is turned off already.' : 'This app is on already.');
    await audit({ action: disabled ? 'app.disabled' : 'app.enabled', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, clientId: listing.clientId });
    return {
      status: 'ok',
      message: disabled
        ? `${listing.app.name} is off: sign-ins are refused with a page that says so, and its clients get no new tokens. Access tokens already issued end within 10 minutes.`
        : `${listing.app.name} is on again: people sign in as before.`,
    };
  },
);

export const deleteAppAction = orgAction(
  { permission: 'apps.manage', input: z.object({ appId, confirmSlug: z.string().trim(), confirmed: z.literal('yes', { error: 'confirm the deletion' }) }) },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    if (input.confirmSlug !== listing.app.slug) throw new ActionRefusal(`Type the app's slug, ${listing.app.slug}, to confirm.`);
    // One transaction: the grants and tokens end, the app goes, and the event (which outlives it) is written.
    const ended = await deleteApp(tx, listing.app.id);
    await audit({ action: 'app.deleted', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, clientId: listing.clientId, details: { slug: listing.app.slug, grantsEnded: ended.grants } });
    return { status: 'ok', message: `${listing.app.name} was deleted.`, redirect: `/console/${access.org.slug}/apps?deleted=1` };
  },
);

/** "I have stored these": the new app's credentials are forgotten by this browser; back to the app's page. */
export async function dismissNewCredentialsAction(form: FormData): Promise<void> {
  const org = form.get('org');
  const app = form.get('appId');
  if (typeof org !== 'string' || !/^[a-z0-9-]{1,64}$/.test(org) || typeof app !== 'string' || !isUuid(app)) redirect('/console');
  await forgetNewCredentials(org, app);
  redirect(`/console/${org}/apps/${app}`);
}
