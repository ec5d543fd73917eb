'use server';
// Server actions of the Apps pages. Each: validate, authorize, one domain call, one audit event (orgAction).
import { redirect } from 'next/navigation';
import { z } from 'zod';
import { appEnvironmentLines } from '@/lib/clients/app-environment';
import { issueSurfaceSecret } from '@/lib/clients/surface';
import { addPostLogoutRedirectUri, addRedirectUri, appClientRegistration, appSlugsOf, APP_PROFILES, DEFAULT_ID_TOKEN_ALG, assertPublishOriginAvailable, createApp, deleteApp, PublishOriginTaken, RedirectOriginTaken, removePostLogoutRedirectUri, removeRedirectUri, setAppDescriptions, setAppDisabled, ID_TOKEN_ALGS, updateApp } from '@/lib/clients/apps';
import { validateAppOrigin, validatePostLogoutRedirectUri, validateRedirectUri, type Validated } from '@/lib/clients/validation';
import { freeSlug, slugFromName } from '@/lib/util/slug';
import { runtime } from '@/lib/runtime';
import { isUuid } from '@/lib/util/uuid';
import { postgresErrorCode } from '@/lib/db/client';
import { localized, supportedLocales, type Translator } from '@/lib/i18n/catalogs';
import { getT, requestLocale } from '@/app/_lib/i18n/server';
import { forgetNewCredentials, keepNewCredentials } from '../../_lib/new-credentials';
import { actionRefusal, optionalSlug, orgAction, spoken } from '../../_lib/action';
import { orgAppOrRefuse } from '../../_lib/org-app';
import { setAppBackchannelLogout, setAppIdTokenAlg } from '@/lib/clients/app-commands';

/** A field checked by one of lib/clients/validation.ts's rules, refused next to it in the reader's words. */
const checkedBy = (check: (value: string) => Validated<string>) => (t: Translator) =>
  z.string().trim().transform((value, ctx) => {
    const result = check(value);
    if (!result.ok) {
      ctx.addIssue({ code: 'custom', message: spoken(t, result.text) });
      return z.NEVER;
    }
    return result.value;
  });

const origin = checkedBy(validateAppOrigin);
// A web app's redirect URI; the new-app form and adding one check with the app's kind instead (native apps differ).
const redirectUri = checkedBy((value) => validateRedirectUri(value));

const avatarUrl = (t: Translator) =>
  z
    .string()
    .trim()
    .max(2048, t('console.apps.errors.avatarUrlLength'))
    .refine((value) => value === '' || /^https:\/\/[^\s]+$/.test(value), t('console.apps.errors.avatarUrl'))
    .transform((value) => (value === '' ? null : value));

const name = (t: Translator) => z.string().trim().min(1, t('console.apps.errors.nameRequired')).max(80, t('console.apps.errors.nameLength'));
/** An app's address in its organization: empty means "made from the name". */
const appSlug = optionalSlug;

const appId = (t: Translator) => z.string().uuid(t('console.apps.errors.appId'));

export const createAppAction = orgAction(
  {
    permission: 'apps.manage',
    input: (t) =>
      z.object({
        name: name(t),
        slug: appSlug(t),
        origin: origin(t),
        // Checked below with the kind of app: a native app may return to a private-use scheme (RFC 8252 §7.1).
        redirectUri: z.string().trim(),
        profile: z.enum(APP_PROFILES, { error: t('console.apps.errors.profile') }),
        authMethod: z.enum(['client_secret_basic', 'client_secret_post'], { error: t('console.apps.errors.authMethod') }),
      }),
  },
  async ({ tx, input, access, audit }) => {
    const checkedRedirect = validateRedirectUri(input.redirectUri, input.profile);
    if (!checkedRedirect.ok) throw actionRefusal(checkedRedirect.text, 'redirectUri');
    const taken = await appSlugsOf(tx, access.org.id);
    // Chosen by the person: refused next to the field when another app has it, with a free one suggested. Left empty:
    // made from the name (cut to a valid length, never refused), with a number when another app has it.
    if (input.slug && taken.has(input.slug)) {
      throw actionRefusal(localized('console.apps.refusals.slugTaken', { slug: input.slug, free: freeSlug(input.slug, (candidate) => taken.has(candidate)) }), 'slug');
    }
    const slug = input.slug || freeSlug(slugFromName(input.name), (candidate) => taken.has(candidate));
    await refuseTakenOrigin(() => assertPublishOriginAvailable(tx, { origin: input.origin, issuer: runtime().env.PORTICO_ISSUER, orgId: access.org.id }));
    const created = await refuseTakenOrigin(() =>
      createApp(tx, { orgId: access.org.id, slug, name: input.name, publishOrigin: input.origin, redirectUris: [checkedRedirect.value], profile: input.profile, ...(input.profile === 'web' ? { tokenEndpointAuthMethod: input.authMethod } : {}) }),
    );
    // The surface secret is a server's (it signs the app's calls to Portico's surface API): a single-page or native
    // app would ship it in its bundle or binary, so it gets one only when its own server asks, on the security tab.
    const surfaceSecret = created.profile === 'web' ? await issueSurfaceSecret(tx, created.app.id, runtime().atRestKey) : undefined;
    await audit({ action: 'app.created', subject: { type: 'app', id: created.app.id, label: created.app.name }, appId: created.app.id, clientId: created.clientId, details: { profile: created.profile, idTokenAlg: DEFAULT_ID_TOKEN_ALG } });
    // Shown once on the app's own page (sealed into a cookie for that page; never in the URL).
    const lines = appEnvironmentLines({ issuer: runtime().env.PORTICO_ISSUER, clientId: created.clientId, clientSecret: created.clientSecret, appIdentity: created.app.identity, surfaceSecret, publicClient: created.profile !== 'web', locale: await requestLocale() });
    await keepNewCredentials({ org: access.org.slug, appId: created.app.id, consoleSession: access.consoleSession, lines });
    return { status: 'ok', message: (await getT('console.apps.done'))('created', { name: created.app.name }), redirect: `/console/${access.org.slug}/apps/${created.app.id}` };
  },
);

/** An origin another app holds is a refusal the admin can act on, not a failure. */
async function refuseTakenOrigin<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof PublishOriginTaken) throw actionRefusal(error.text);
    if (error instanceof RedirectOriginTaken) throw actionRefusal(localized('console.apps.refusals.redirectOriginTaken', { origin: error.origin }));
    // Two creations with the same address at once: the unique index lets one in; the other is told next to the field.
    if (postgresErrorCode(error) === '23505') throw actionRefusal(localized('console.apps.refusals.slugRace'), 'slug');
    throw error;
  }
}


export const updateAppAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ appId: appId(t), name: name(t), origin: origin(t), avatarUrl: avatarUrl(t) }) },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    await refuseTakenOrigin(() => assertPublishOriginAvailable(tx, { origin: input.origin, issuer: runtime().env.PORTICO_ISSUER, orgId: listing.app.orgId, appId: listing.app.id }));
    await updateApp(tx, listing.app.id, { name: input.name, avatarUrl: input.avatarUrl, publishOrigin: input.origin });
    await audit({
      action: 'app.updated',
      subject: { type: 'app', id: listing.app.id, label: input.name },
      appId: listing.app.id,
      details: { name: input.name, publishOrigin: input.origin, avatarUrl: input.avatarUrl },
    });
    return { status: 'ok', message: (await getT('console.apps.done'))('saved') };
  },
);

/** The app's description, one field per language Portico speaks (`description_<locale>`); empty removes it. */
export const saveAppDescriptionsAction = orgAction(
  {
    permission: 'apps.manage',
    input: (t) =>
      z
        .object({ appId: appId(t) })
        .catchall(z.string().trim().max(200, t('console.app.descriptions.tooLong'))),
  },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    const descriptions: Record<string, string> = {};
    for (const locale of supportedLocales()) {
      const text = input[`description_${locale}`];
      if (typeof text === 'string' && text !== '') descriptions[locale] = text;
    }
    await setAppDescriptions(tx, listing.app.id, descriptions);
    await audit({ action: 'app.descriptions_updated', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, details: { languages: Object.keys(descriptions) } });
    return { status: 'ok', message: (await getT('console.app.descriptions'))('saved') };
  },
);

export const addRedirectUriAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ appId: appId(t), redirectUri: z.string().trim() }) },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    const checked = validateRedirectUri(input.redirectUri, (await appClientRegistration(tx, listing.clientId)).profile);
    if (!checked.ok) throw actionRefusal(checked.text, 'redirectUri');
    if (!(await refuseTakenOrigin(() => addRedirectUri(tx, listing.clientId, input.redirectUri)))) throw actionRefusal(localized('console.apps.refusals.redirectUriRegistered'));
    await audit({ action: 'app.redirect_uri_added', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, clientId: listing.clientId, details: { uri: input.redirectUri } });
    return { status: 'ok', message: (await getT('console.apps.done'))('redirectUriAdded') };
  },
);

export const removeRedirectUriAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ appId: appId(t), uri: z.string().min(1), confirmed: z.literal('yes', { error: t('console.action.confirm.removal') }) }) },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    if (!(await removeRedirectUri(tx, listing.clientId, input.uri))) throw actionRefusal(localized('console.apps.refusals.redirectUriNotRegistered'));
    await audit({ action: 'app.redirect_uri_removed', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, clientId: listing.clientId, details: { uri: input.uri } });
    return { status: 'ok', message: (await getT('console.apps.done'))('redirectUriRemoved') };
  },
);

export const addPostLogoutRedirectUriAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ appId: appId(t), postLogoutRedirectUri: z.string().trim() }) },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    // Kept as written; checked with the app's kind (a native app's may be a private-use scheme).
    const checked = validatePostLogoutRedirectUri(input.postLogoutRedirectUri, (await appClientRegistration(tx, listing.clientId)).profile);
    if (!checked.ok) throw actionRefusal(checked.text, 'postLogoutRedirectUri');
    if (!(await addPostLogoutRedirectUri(tx, listing.clientId, input.postLogoutRedirectUri))) throw actionRefusal(localized('console.apps.refusals.logoutUriRegistered'), 'postLogoutRedirectUri');
    await audit({ action: 'app.post_logout_redirect_uri_added', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, clientId: listing.clientId, details: { uri: input.postLogoutRedirectUri } });
    return { status: 'ok', message: (await getT('console.apps.done'))('logoutUriAdded') };
  },
);

export const removePostLogoutRedirectUriAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ appId: appId(t), uri: z.string().min(1), confirmed: z.literal('yes', { error: t('console.action.confirm.removal') }) }) },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    if (!(await removePostLogoutRedirectUri(tx, listing.clientId, input.uri))) throw actionRefusal(localized('console.apps.refusals.logoutUriNotRegistered'));
    await audit({ action: 'app.post_logout_redirect_uri_removed', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, clientId: listing.clientId, details: { uri: input.uri } });
    return { status: 'ok', message: (await getT('console.apps.done'))('logoutUriRemoved') };
  },
);

/** How the app's ID tokens are signed (RS256 or ES256): its relying parties must be configured to match. */
export const setIdTokenAlgAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ appId: appId(t), idTokenAlg: z.enum(ID_TOKEN_ALGS, { error: t('console.apps.errors.idTokenAlg') }) }) },
  async ({ tx, input, access, audit }) => {
    await setAppIdTokenAlg({ tx, audit }, await orgAppOrRefuse(tx, access.org.id, input.appId), input.idTokenAlg);
    return { status: 'ok', message: (await getT('console.apps.done'))('idTokenAlgSaved', { alg: input.idTokenAlg }) };
  },
);

export const setBackchannelLogoutAction = orgAction(
  {
    permission: 'apps.manage',
    input: (t) => z.object({ appId: appId(t), backchannelLogoutUri: redirectUri(t).pipe(z.string().max(2000, t('console.apps.errors.backchannelLogoutUriLength'))), sessionRequired: z.literal('on').optional() }),
  },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    await setAppBackchannelLogout({ tx, audit }, listing, { uri: input.backchannelLogoutUri, sessionRequired: input.sessionRequired === 'on' });
    return { status: 'ok', message: (await getT('console.apps.done'))('backchannelLogoutSaved') };
  },
);

export const removeBackchannelLogoutAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ appId: appId(t), confirmed: z.literal('yes', { error: t('console.action.confirm.removal') }) }) },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    await setAppBackchannelLogout({ tx, audit }, listing, null);
    return { status: 'ok', message: (await getT('console.apps.done'))('backchannelLogoutRemoved') };
  },
);

export const setAppDisabledAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ appId: appId(t), disabled: z.enum(['true', 'false']) }) },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    const disabled = input.disabled === 'true';
    if (!(await setAppDisabled(tx, listing.app.id, disabled))) throw actionRefusal(disabled ? localized('console.apps.refusals.offAlready') : localized('console.apps.refusals.onAlready'));
    await audit({ action: disabled ? 'app.disabled' : 'app.enabled', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, clientId: listing.clientId });
    const t = await getT('console.apps.done');
    return { status: 'ok', message: disabled ? t('turnedOff', { name: listing.app.name }) : t('turnedOn', { name: listing.app.name }) };
  },
);

export const deleteAppAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ appId: appId(t), confirmSlug: z.string().trim(), confirmed: z.literal('yes', { error: t('console.action.confirm.deletion') }) }) },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    if (input.confirmSlug !== listing.app.slug) throw actionRefusal(localized('console.apps.refusals.wrongSlug', { slug: listing.app.slug }));
    // One transaction: the grants and tokens end, the app goes, and the event (which outlives it) is written.
    const ended = await deleteApp(tx, listing.app.id);
    await audit({ action: 'app.deleted', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, clientId: listing.clientId, details: { slug: listing.app.slug, grantsEnded: ended.grants } });
    return { status: 'ok', message: (await getT('console.apps.done'))('deleted', { name: listing.app.name }), redirect: `/console/${access.org.slug}/apps?deleted=1` };
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
