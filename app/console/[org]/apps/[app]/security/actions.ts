'use server';
// The security tab's actions: rotation steps, revocation, dev environment, dev-only redirect URIs.
import { z } from 'zod';
import { addRedirectUri } from '@/lib/clients/apps';
import { cancelSecretRotation, completeSecretRotation, revokeAppAccess, setAppDevEnvironment, startSecretRotation } from '@/lib/clients/app-commands';
import { issueSurfaceSecret, recordVerification, surfaceSecretOf, surfaceStateOf, surfaceVerificationFetch, verifyAppSurface } from '@/lib/clients/surface';
import { validateRedirectUri } from '@/lib/clients/validation';
import { db, runtime } from '@/lib/runtime';
import { ActionRefusal, orgAction } from '../../../../_lib/action';
import { orgAppOrRefuse } from '../../../../_lib/org-app';

const appId = z.string().uuid('is not an app');
const generation = z.coerce.number().int().min(1);
const confirmed = z.literal('yes', { error: 'confirm this step' });


function subject(listing: Awaited<ReturnType<typeof orgAppOrRefuse>>) {
  return { type: 'app', id: listing.app.id, label: listing.app.name };
}

export const startRotationAction = orgAction(
  { permission: 'apps.manage', input: z.object({ appId, generation, overlapHours: z.coerce.number().int().min(1, 'at least 1 hour').max(720, 'at most 720 hours (30 days)') }) },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    const result = await startSecretRotation({ tx, audit }, listing, { generation: input.generation, overlapSeconds: input.overlapHours * 3600 });
    return {
      status: 'ok',
      message: `Rotation started. Both secrets work until ${result.rotationEndsAt.toISOString()}. Put the new secret in the app's environment, then complete the rotation. It is shown only now:`,
      secret: [`PORTICO_CLIENT_SECRET=${result.secret}`],
    };
  },
);

export const completeRotationAction = orgAction(
  { permission: 'apps.manage', input: z.object({ appId, generation, confirmed }) },
  async ({ tx, input, access, audit }) => {
    await completeSecretRotation({ tx, audit }, await orgAppOrRefuse(tx, access.org.id, input.appId), input.generation);
    return { status: 'ok', message: 'Rotation completed: only the new secret works now.' };
  },
);

export const cancelRotationAction = orgAction(
  { permission: 'apps.manage', input: z.object({ appId, generation, confirmed }) },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    await cancelSecretRotation({ tx, audit }, listing, input.generation);
    // A fresh page: the discarded secret, still on screen in the start form, must not stay there.
    return { status: 'ok', message: 'Rotation cancelled.', redirect: `/console/${access.org.slug}/apps/${listing.app.id}/security?rotation=cancelled` };
  },
);

export const revokeAccessAction = orgAction(
  { permission: 'apps.manage', input: z.object({ appId, confirmed }) },
  async ({ tx, input, access, audit }) => {
    const counts = await revokeAppAccess({ tx, audit }, await orgAppOrRefuse(tx, access.org.id, input.appId));
    return { status: 'ok', message: `Revoked ${counts.Grant ?? 0} grant(s), ${counts.RefreshToken ?? 0} refresh token(s) and ${counts.AuthorizationCode ?? 0} code(s) in flight.` };
  },
);

export const setDevEnvironmentAction = orgAction(
  { permission: 'apps.manage', input: z.object({ appId, hours: z.coerce.number().int().min(0).max(720, 'at most 720 hours') }) },
  async ({ tx, input, access, audit }) => {
    const until = await setAppDevEnvironment({ tx, audit }, await orgAppOrRefuse(tx, access.org.id, input.appId), input.hours);
    return { status: 'ok', message: until ? `Dev environment on until ${until.toISOString()}.` : 'Dev environment off: dev-only redirect URIs are refused.' };
  },
);

export const addDevRedirectUriAction = orgAction(
  {
    permission: 'apps.manage',
    input: z.object({
      appId,
      redirectUri: z.string().trim().transform((value, ctx) => {
        const result = validateRedirectUri(value);
        if (!result.ok) {
          ctx.addIssue({ code: 'custom', message: result.error });
          return z.NEVER;
        }
        return result.value;
      }),
    }),
  },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    if (!(await addRedirectUri(tx, listing.clientId, input.redirectUri, true))) throw new ActionRefusal('This redirect URI is registered already.');
    await audit({ action: 'app.redirect_uri_added', subject: subject(listing), appId: listing.app.id, clientId: listing.clientId, details: { uri: input.redirectUri, devOnly: true } });
    return { status: 'ok', message: 'Dev-only redirect URI added: it works while the dev environment is on.' };
  },
);

export const issueSurfaceSecretAction = orgAction(
  { permission: 'apps.manage', input: z.object({ appId, confirmed: z.enum(['no', 'yes']).optional() }) },
  async ({ tx, input, access, audit }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    const state = await surfaceStateOf(tx, listing.app.id);
    // A second "create" from a stale page must not silently cut off a secret the app already uses.
    if (state.hasSecret && input.confirmed !== 'yes') throw new ActionRefusal('This app has a surface secret already. Reload the page to replace it.');
    const secret = await issueSurfaceSecret(tx, listing.app.id, runtime().atRestKey);
    await audit({ action: state.hasSecret ? 'app.surface_secret_replaced' : 'app.surface_secret_created', subject: subject(listing), appId: listing.app.id, clientId: listing.clientId });
    return {
      status: 'ok',
      message: `${state.hasSecret ? 'The previous surface secret stopped working now. ' : ''}Put this in the app's environment; it is shown only now:`,
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
    input: z.object({ appId }),
    prepare: async ({ input, access }) => {
      const listing = await orgAppOrRefuse(db(), access.org.id, input.appId);
      const secret = await surfaceSecretOf(db(), listing.app.id, runtime().atRestKey);
      if (!secret) throw new ActionRefusal('Create a surface secret first: Portico signs its call to the app with it.');
      const state = await surfaceStateOf(db(), listing.app.id);
      const verification = await verifyAppSurface({ publishOrigin: listing.app.publishOrigin, secret, declaration: state.declaration }, surfaceVerificationFetch({ allowLoopback: runtime().env.outboundAllowLoopback }));
      return { verification, declaredAt: state.declaredAt?.getTime() ?? null, secretCreatedAt: state.secretCreatedAt?.getTime() ?? null };
    },
  },
  async ({ tx, input, access, audit, prepared: { verification: prepared, declaredAt, secretCreatedAt } }) => {
    const listing = await orgAppOrRefuse(tx, access.org.id, input.appId);
    // What was compared must still be what is declared (and signed with the current secret): otherwise the outcome
    // would be shown against a declaration it never saw.
    const now = await surfaceStateOf(tx, listing.app.id);
    if ((now.declaredAt?.getTime() ?? null) !== declaredAt || (now.secretCreatedAt?.getTime() ?? null) !== secretCreatedAt) {
      throw new ActionRefusal('The app declared its surface again (or its secret changed) while Portico was verifying: verify again.');
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
    return { status: 'ok', message: 'Verification done: the outcome is under “Last verification”.' };
  },
);
