// What an admin does to an app's credentials, once: the console's security tab and Portico's MCP tools call these,
// so an operation is checked and audited the same way whichever door it came through. The caller has authorized
// `apps.manage` through the organization-operation kernel (lib/organizations/org-operation.ts), which gives the context.
import { eq } from 'drizzle-orm';
import { type OrgOperationContext } from '../organizations/org-operation';
import { apps, clients } from '../db/schema';
import { endClientAccess } from '../grants';
import { shownLogoutUri } from '../deliveries/channels/logout-token';
import { localized } from '../i18n/catalogs';
import { setDevEnvironment } from './dev-environment';
import { addPermission, describePermission, restorePermission, retirePermission } from './permission-catalog';
import { cancelRotation, completeRotation, credentialState, startRotation } from './rotation';
import { setIdTokenAlg, setNonceWithoutPkce, type findOrgApp, type IdTokenAlg } from './apps';
import { setBackchannelLogout, type BackchannelLogoutSetting } from './backchannel-logout';
import { commandRefusal } from '../organizations/refusal-codes';

type AppListing = NonNullable<Awaited<ReturnType<typeof findOrgApp>>>;
type Context = Pick<OrgOperationContext, 'tx' | 'audit'>;

/** A single-page or native app: its own client is public (no secret), so what needs one is refused for it. */
async function hasPublicClient(ctx: Context, listing: AppListing): Promise<boolean> {
  const [client] = await ctx.tx.select({ type: clients.type }).from(clients).where(eq(clients.id, listing.clientId)).limit(1);
  return client?.type === 'public';
}

function about(listing: AppListing) {
  return { subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, clientId: listing.clientId };
}

/**
 * Starts a rotation: a new secret, and an overlap during which both work. `generation` is the credential state the
 * person saw (a compare-and-swap: a stale page cannot start a second one); without it, the current one.
 */
export async function startSecretRotation(ctx: Context, listing: AppListing, input: { generation?: number; overlapSeconds: number }) {
  if (await hasPublicClient(ctx, listing)) throw commandRefusal(409, localized('refusals.rotation.appNoSecret'));
  const generation = input.generation ?? (await credentialState(ctx.tx, listing.clientId))?.generation;
  if (generation === undefined) throw commandRefusal(409, localized('refusals.rotation.appNoSecret'));
  const result = await startRotation(ctx.tx, listing.clientId, generation, input.overlapSeconds);
  if (!result.ok) throw commandRefusal(409, result.text);
  await ctx.audit({ action: 'app.secret_rotation_started', ...about(listing), details: { generation: result.generation, overlapEndsAt: result.rotationEndsAt.toISOString() } });
  return result;
}

export async function completeSecretRotation(ctx: Context, listing: AppListing, generation: number) {
  const result = await completeRotation(ctx.tx, listing.clientId, generation);
  if (!result.ok) throw commandRefusal(409, result.text);
  await ctx.audit({ action: 'app.secret_rotation_completed', ...about(listing), details: { generation: result.generation } });
  return result;
}

export async function cancelSecretRotation(ctx: Context, listing: AppListing, generation: number) {
  const result = await cancelRotation(ctx.tx, listing.clientId, generation);
  if (!result.ok) throw commandRefusal(409, result.text);
  await ctx.audit({ action: 'app.secret_rotation_cancelled', ...about(listing), details: { generation: result.generation } });
  return result;
}

/** Ends every grant and refresh token of the app's own client, and its codes in flight. */
export async function revokeAppAccess(ctx: Context, listing: AppListing): Promise<Record<string, number>> {
  const counts = await endClientAccess(ctx.tx, listing.clientId);
  await ctx.audit({ action: 'app.access_revoked', ...about(listing), details: counts });
  return counts;
}

/** Turns the dev environment on for `hours` (dev-only redirect URIs accepted), or off with 0. */
export async function setAppDevEnvironment(ctx: Context, listing: AppListing, hours: number): Promise<Date | null> {
  const until = hours > 0 ? new Date(Date.now() + hours * 3600_000) : null;
  await setDevEnvironment(ctx.tx, listing.app.id, until);
  await ctx.audit({ action: until ? 'app.dev_environment_on' : 'app.dev_environment_off', ...about(listing), details: { until: until?.toISOString() ?? null } });
  return until;
}

/**
 * Lets the app's own client ask people to approve actions from its backend (CIBA, lib/oidc/ciba.ts), or stops it.
 * Turning it off refuses new requests at once (the client's grant types change in every instance's cache); requests
 * already waiting can still be answered and polled until they expire.
 */
export async function setAppBackchannelApproval(ctx: Context, listing: AppListing, enabled: boolean): Promise<void> {
  // CIBA's requests come from the app's backend with its secret: a single-page or native app has neither.
  if (enabled && (await hasPublicClient(ctx, listing))) throw commandRefusal(409, localized('refusals.apps.publicClient'));
  await ctx.tx.update(apps).set({ cibaEnabled: enabled }).where(eq(apps.id, listing.app.id));
  await ctx.audit({ action: enabled ? 'app.ciba_enabled' : 'app.ciba_disabled', ...about(listing) });
}

/**
 * Lets relying parties of the app that send a nonce but no PKCE sign in (passport-openidconnect), or stops it. Off by
 * default: RFC 9700 §2.1.1 lets a confidential OpenID Connect client use nonce instead of PKCE, and Portico allows it
 * only where the app's admin chose to (lib/oidc/client-policy.ts pkceRequired).
 */
export async function setAppNonceWithoutPkce(ctx: Context, listing: AppListing, allowed: boolean): Promise<void> {
  // RFC 9700 §2.1.1's exception is for confidential clients only.
  if (allowed && (await hasPublicClient(ctx, listing))) throw commandRefusal(409, localized('refusals.apps.publicClient'));
  if (!(await setNonceWithoutPkce(ctx.tx, listing.clientId, allowed))) {
    throw commandRefusal(409, allowed ? localized('refusals.apps.nonceWithoutPkceAlready') : localized('refusals.apps.pkceRequiredAlready'));
  }
  await ctx.audit({ action: allowed ? 'app.nonce_without_pkce_allowed' : 'app.nonce_without_pkce_forbidden', ...about(listing) });
}

/** How the app's ID tokens are signed (RS256 or ES256): its relying parties must expect the same. */
export async function setAppIdTokenAlg(ctx: Context, listing: AppListing, alg: IdTokenAlg): Promise<void> {
  if (!(await setIdTokenAlg(ctx.tx, listing.clientId, alg))) throw commandRefusal(409, localized('console.apps.refusals.idTokenAlgAlready', { alg }));
  await ctx.audit({ action: 'app.id_token_alg_changed', ...about(listing), details: { alg } });
}

/**
 * Registers where the app's own client hears that a person's session ended (OpenID Connect Back-Channel Logout 1.0),
 * or removes it (null). The URI is validated by the caller's form; refused here when nothing would change.
 */
export async function setAppBackchannelLogout(ctx: Context, listing: AppListing, setting: BackchannelLogoutSetting | null): Promise<void> {
  if (!(await setBackchannelLogout(ctx.tx, listing.clientId, setting))) {
    throw commandRefusal(409, setting ? localized('refusals.backchannelLogout.unchanged') : localized('refusals.backchannelLogout.notRegistered'));
  }
  await ctx.audit(
    setting
      ? { action: 'app.backchannel_logout_set', ...about(listing), details: { uri: shownLogoutUri(setting.uri), sessionRequired: setting.sessionRequired } }
      : { action: 'app.backchannel_logout_removed', ...about(listing) },
  );
}

/** Adds a permission to the app's catalog (or describes a declared one, or brings back a retired one). */
export async function addAppPermission(ctx: Context, listing: AppListing, input: { scope: string; description: string }) {
  const { created } = await addPermission(ctx.tx, listing.app.id, input);
  await ctx.audit({ action: 'app.permission_added', ...about(listing), details: { scope: input.scope, description: input.description.trim(), created } });
}

export async function describeAppPermission(ctx: Context, listing: AppListing, input: { scope: string; description: string }) {
  await describePermission(ctx.tx, listing.app.id, input);
  await ctx.audit({ action: 'app.permission_described', ...about(listing), details: { scope: input.scope, description: input.description.trim() } });
}

export async function retireAppPermission(ctx: Context, listing: AppListing, scope: string) {
  await retirePermission(ctx.tx, listing.app.id, scope);
  await ctx.audit({ action: 'app.permission_retired', ...about(listing), details: { scope } });
}

export async function restoreAppPermission(ctx: Context, listing: AppListing, scope: string) {
  await restorePermission(ctx.tx, listing.app.id, scope);
  await ctx.audit({ action: 'app.permission_restored', ...about(listing), details: { scope } });
}
