'use server';
// The security tab's actions: rotation steps, revocation, dev environment, dev-only redirect URIs.
import { z } from 'zod';
import { addRedirectUri, appClientRegistration } from '@/lib/clients/apps';
import { cancelSecretRotation, completeSecretRotation, revokeAppAccess, setAppBackchannelApproval, setAppDevEnvironment, setAppNonceWithoutPkce, startSecretRotation } from '@/lib/clients/app-commands';
import { issueSurfaceSecret, recordVerification, surfaceSecretOf, surfaceStateOf, surfaceVerificationFetch, verifyAppSurface } from '@/lib/clients/surface';
import { validateRedirectUri } from '@/lib/clients/validation';
import { db, runtime } from '@/lib/runtime';
import { localized, type Translator } from '@/lib/i18n/catalogs';
import { getT } from '@/app/_lib/i18n/server';
import { actionRefusal, orgAction, spoken } from '../../../../_lib/action';
import { orgAppOrRefuse } from '../../../../_lib/org-app';
import { deliveryPolicy } from '@/lib/http/outbound';

const appId = (t: Translator) => z.string().uuid(t('console.app.security.errors.appId'));
const generation = z.coerce.number().int().min(1);
const confirmed = (t: Translator) => z.literal('yes', { error: t('console.action.confirm.step') });


function subject(listing: Awaited<ReturnType<typeof orgAppOrRefuse>>) {
  return { type: 'app', id: listing.app.id, label: listing.app.name };
}

export const startRotationAction = orgAction(
  {
    permission: 'apps.manage',
    input: (t) =>
      z.object({
        appId: appId(t),
        generation,
        overlapHours: z.coerce
          .number({ error: t('console.app.security.errors.overlapNumber') })
          .int(t('console.app.security.errors.overlapInteger'))
          .min(1, t('console.app.security.errors.overlapMin'))
          .max(720, t('console.app.security.errors.overlapMax')),
      }),
  },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    const result = await startSecretRotation({ tx, audit }, listing, { generation: input.generation, overlapSeconds: input.overlapHours * 3600 });
    return {
      status: 'ok',
      message: (await getT('console.app.security.done'))('rotationStarted', { until: result.rotationEndsAt.toISOString() }),
      secret: [`PORTICO_CLIENT_SECRET=${result.secret}`],
    };
  },
);

export const completeRotationAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ appId: appId(t), generation, confirmed: confirmed(t) }) },
  async ({ tx, input, access, audit }) => {
    await completeSecretRotation({ tx, audit }, await orgAppOrRefuse(tx, access.org.id, input.appId), input.generation);
    return { status: 'ok', message: (await getT('console.app.security.done'))('rotationCompleted') };
  },
);

export const cancelRotationAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ appId: appId(t), generation, confirmed: confirmed(t) }) },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    await cancelSecretRotation({ tx, audit }, listing, input.generation);
    // A fresh page: the discarded secret, still on screen in the start form, must not stay there.
    return { status: 'ok', message: (await getT('console.app.security.done'))('rotationCancelled'), redirect: `/console/${access.org.slug}/apps/${listing.app.id}/security?rotation=cancelled` };
  },
);

export const revokeAccessAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ appId: appId(t), confirmed: confirmed(t) }) },
  async ({ tx, input, access, audit }) => {
    const counts = await revokeAppAccess({ tx, audit }, await orgAppOrRefuse(tx, access.org.id, input.appId));
    return {
      status: 'ok',
      message: (await getT('console.app.security.done'))('accessRevoked', { grants: counts.Grant ?? 0, refreshTokens: counts.RefreshToken ?? 0, codes: counts.AuthorizationCode ?? 0 }),
    };
  },
);

export const setDevEnvironmentAction = orgAction(
  {
    permission: 'apps.manage',
    input: (t) =>
      z.object({
        appId: appId(t),
        hours: z.coerce
          .number({ error: t('console.app.security.errors.hoursNumber') })
          .int(t('console.app.security.errors.hoursInteger'))
          .min(0, t('console.app.security.errors.hoursMin'))
          .max(720, t('console.app.security.errors.hoursMax')),
      }),
  },
  async ({ tx, input, access, audit }) => {
    const until = await setAppDevEnvironment({ tx, audit }, await orgAppOrRefuse(tx, access.org.id, input.appId), input.hours);
    const t = await getT('console.app.security.done');
    return { status: 'ok', message: until ? t('devOn', { until: until.toISOString() }) : t('devOff') };
  },
);

export const setBackchannelApprovalAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ appId: appId(t), enabled: z.enum(['on', 'off']) }) },
  async ({ tx, input, access, audit }) => {
    await setAppBackchannelApproval({ tx, audit }, await orgAppOrRefuse(tx, access.org.id, input.appId), input.enabled === 'on');
    const t = await getT('console.app.security.done');
    return { status: 'ok', message: input.enabled === 'on' ? t('cibaOn') : t('cibaOff') };
  },
);

/** "Allow relying parties that send a nonce but no PKCE" (off by default; lib/oidc/client-policy.ts pkceRequired). */
export const setNonceWithoutPkceAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ appId: appId(t), allowed: z.enum(['on', 'off']) }) },
  async ({ tx, input, access, audit }) => {
    await setAppNonceWithoutPkce({ tx, audit }, await orgAppOrRefuse(tx, access.org.id, input.appId), input.allowed === 'on');
    const t = await getT('console.app.security.done');
    return { status: 'ok', message: input.allowed === 'on' ? t('nonceWithoutPkceOn') : t('nonceWithoutPkceOff') };
  },
);

export const addDevRedirectUriAction = orgAction(
  {
    permission: 'apps.manage',
    input: (t) =>
      z.object({
        appId: appId(t),
        redirectUri: z.string().trim(),
      }),
  },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    // Checked with the app's kind: a native app's may be a private-use scheme or loopback http (RFC 8252 §7).
    const checked = validateRedirectUri(input.redirectUri, (await appClientRegistration(tx, listing.clientId)).profile);
    if (!checked.ok) throw actionRefusal(checked.text, 'redirectUri');
    if (!(await addRedirectUri(tx, listing.clientId, input.redirectUri, true))) throw actionRefusal(localized('console.apps.refusals.redirectUriRegistered'));
    await audit({ action: 'app.redirect_uri_added', subject: subject(listing), appId: listing.app.id, clientId: listing.clientId, details: { uri: input.redirectUri, devOnly: true } });
    return { status: 'ok', message: (await getT('console.app.security.done'))('devUriAdded') };
  },
);

export const issueSurfaceSecretAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ appId: appId(t), confirmed: z.enum(['no', 'yes']).optional() }) },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    const state = await surfaceStateOf(tx, listing.app.id);
    // A second "create" from a stale page must not silently cut off a secret the app already uses.
    if (state.hasSecret && input.confirmed !== 'yes') throw actionRefusal(localized('console.app.security.refusals.surfaceSecretExists'));
    const secret = await issueSurfaceSecret(tx, listing.app.id, runtime().atRestKey);
    const t = await getT('console.app.security.done');
    await audit({ action: state.hasSecret ? 'app.surface_secret_replaced' : 'app.surface_secret_created', subject: subject(listing), appId: listing.app.id, clientId: listing.clientId });
    return {
      status: 'ok',
      message: state.hasSecret ? t('surfaceSecretReplaced') : t('surfaceSecretCreated'),
      secret: [`PORTICO_SURFACE_SECRET=${secret}`],
    };
  },
);

/**
 * Verification is started by a person, never by loading the page. The call to the app happens before the
 * transaction (prepare), so a slow app never holds a database connection; its outcome is recorded and audited.
 */
export const verifySurfaceAction = orgAction(
  {
    permission: 'apps.manage',
    input: (t) => z.object({ appId: appId(t) }),
    prepare: async ({ input, access }) => {
      const listing = await orgAppOrRefuse(db(), access.org.id, input.appId);
      const secret = await surfaceSecretOf(db(), listing.app.id, runtime().atRestKey);
      if (!secret) throw actionRefusal(localized('console.app.security.refusals.noSurfaceSecret'));
      const state = await surfaceStateOf(db(), listing.app.id);
      const verification = await verifyAppSurface({ publishOrigin: listing.app.publishOrigin, secret, declaration: state.declaration }, surfaceVerificationFetch(deliveryPolicy(runtime().env)));
      return { verification, declaredAt: state.declaredAt?.getTime() ?? null, secretCreatedAt: state.secretCreatedAt?.getTime() ?? null };
    },
  },
  async ({ tx, input, access, audit, prepared: { verification: prepared, declaredAt, secretCreatedAt } }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    // What was compared must still be what is declared (and signed with the current secret): otherwise the outcome
    // would be shown against a declaration it never saw.
    const now = await surfaceStateOf(tx, listing.app.id);
    if ((now.declaredAt?.getTime() ?? null) !== declaredAt || (now.secretCreatedAt?.getTime() ?? null) !== secretCreatedAt) {
      throw actionRefusal(localized('console.app.security.refusals.surfaceChanged'));
    }
    await recordVerification(tx, listing.app.id, prepared);
    await audit({
      action: 'app.surface_verified',
      subject: subject(listing),
      appId: listing.app.id,
      details: {
        outcome: prepared.outcome,
        detail: prepared.detail,
        ...(prepared.difference
          ? { undeclared: prepared.difference.undeclared.map((tool) => tool.name), missing: prepared.difference.missing.map((tool) => tool.name), changed: prepared.difference.changed.map((change) => change.name) }
          : {}),
      },
    });
    return { status: 'ok', message: (await getT('console.app.security.done'))('verified') };
  },
);
