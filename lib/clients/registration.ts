// Dynamic client registration (RFC 7591) for MCP clients: public clients only (PKCE, no secret), redirect URIs
// that cannot be turned against anyone else, and abuse limits shared by every instance.
//
// Not idempotent, by decision: a registration carries no client authentication, so two installations sending the
// same metadata would otherwise share one client_id, and revoking one would revoke the other. The per-IP limit and
// the global cap bound how many clients a caller can pile up.
import { isPrivateUseScheme, NATIVE_LOOPBACK_HOSTS } from './validation';
import { randomBytes } from 'node:crypto';
import type { Database } from '../db/client';
import { clients, redirectUris } from '../db/schema';
import { recordAuditEvent } from '../audit/events';
import { hitRateLimit, type RateLimitRule } from '../rate-limit/fixed-window';
import { localized, textIn, type LocalizedText } from '../i18n/catalogs';
import { DEVICE_CODE_GRANT_TYPE } from './client-metadata';
import { validateBackchannelLogoutUri } from './backchannel-logout';
import { SIGNING_ALGORITHMS } from '../oidc/keys';

export interface RegistrationLimits {
  perIp: RateLimitRule;
  global: RateLimitRule;
}

/** The registration limits: per client (an IPv6 client per /64) and in all, per hour. */
export function registrationLimits(perClientPerHour: number, globalPerHour: number): RegistrationLimits {
  return {
    perIp: { name: 'dcr:ip', limit: perClientPerHour, windowSeconds: 3600, perClientNetwork: true },
    global: { name: 'dcr:global', limit: globalPerHour, windowSeconds: 3600 },
  };
}

export const MAX_REGISTRATION_BODY_BYTES = 16 * 1024;
const MAX_REDIRECT_URIS = 10;
/** What a public client may register (dynamically or in its metadata document): the code flow, refresh, the device grant (RFC 8628). */
export const REGISTRABLE_GRANT_TYPES: readonly unknown[] = ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT_TYPE];

/**
 * What a dynamically registered client is registered with besides what it chose: oidc-provider's defaults for a
 * client that names none (OpenID Connect Registration §2, RP-Initiated Logout 1.0 §3.1, Back-Channel Logout 1.0 §2.2,
 * RFC 9126 §6, RFC 9449 §5.2, RFC 9396 §10, CIBA Core §4). Stored with the client and stated in the answer (RFC 7591
 * §3.2.1), so what the answer said stays what the client has, whatever the provider's defaults become.
 */
function registeredDefaults(): Record<string, unknown> {
  return {
    subject_type: 'public',
    require_auth_time: false,
    post_logout_redirect_uris: [],
    backchannel_logout_session_required: false,
    require_pushed_authorization_requests: false,
    dpop_bound_access_tokens: false,
    authorization_details_types: [],
    backchannel_user_code_parameter: false,
  };
}

export type RegistrationError = { error: 'invalid_redirect_uri' | 'invalid_client_metadata'; error_description: string };

/** RFC 8252 §7: https, http on a loopback host (any port), or a private-use scheme in reverse-domain form (§7.1). */
export function checkRegisteredRedirectUri(value: unknown): string | undefined {
  const problem = registeredRedirectUriProblem(value);
  return problem ? textIn(problem) : undefined;
}

/** The same check, its problem as catalog words (the console shows them in the person's language). */
export function registeredRedirectUriProblem(value: unknown): LocalizedText | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2000) return localized('refusals.registration.uriLength');
  const shown = value.slice(0, 100);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return localized('refusals.registration.notAbsolute', { value: shown });
  }
  if (url.hash || value.includes('#')) return localized('refusals.registration.fragment', { value: shown });
  if (url.username || url.password) return localized('refusals.registration.credentials', { value: shown });
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') {
    // The loopback literals oidc-provider matches port-agnostically for native clients (RFC 8252 §7.3, §8.3).
    return NATIVE_LOOPBACK_HOSTS.has(url.hostname) ? undefined : localized('refusals.registration.plainHttp', { value: shown });
  }
  if (isPrivateUseScheme(url.protocol.slice(0, -1))) return undefined;
  return localized('refusals.registration.scheme', { value: shown });
}

export interface ValidRegistration {
  clientName: string;
  redirectUris: string[];
  grantTypes: string[];
  metadata: Record<string, unknown>;
}

/**
 * Validates RFC 7591 §2 client metadata for a public client. Unknown fields are ignored (§3.1). What a client sent that
 * its own grants never use is replaced by what they do use (§3.2.1): a client without the authorization_code grant
 * registers no redirect URIs and no response types, whatever it sent for them (mcp-remote's device mode sends its
 * loopback callback and `["code"]`); one with it registers `["code"]`. What the client would use, and Portico cannot
 * give it, is refused with invalid_client_metadata naming the field (invalid_redirect_uri for a redirect URI's value).
 */
export function validateRegistration(body: unknown): ValidRegistration | RegistrationError {
  const invalid = (error_description: string): RegistrationError => ({ error: 'invalid_client_metadata', error_description });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return invalid('the request body must be a JSON object');
  const input = body as Record<string, unknown>;

  const grantTypes = input.grant_types ?? ['authorization_code', 'refresh_token'];
  if (!Array.isArray(grantTypes) || grantTypes.length === 0 || !grantTypes.every((g) => REGISTRABLE_GRANT_TYPES.includes(g))) {
    return invalid(`grant_types may contain only ${REGISTRABLE_GRANT_TYPES.map((g) => `"${g}"`).join(', ')}`);
  }
  if (!grantTypes.includes('authorization_code') && !grantTypes.includes(DEVICE_CODE_GRANT_TYPE)) return invalid(`grant_types must include "authorization_code" or "${DEVICE_CODE_GRANT_TYPE}"`);
  const method = input.token_endpoint_auth_method ?? 'none';
  if (method !== 'none') return invalid('token_endpoint_auth_method must be "none": dynamically registered clients are public and use PKCE');
  // OAuth 2.1 has no implicit or hybrid flow: "code" is the one response type there is. Which ones are registered
  // follows from the grants (RFC 7591 §2.1), below.
  const responseTypes = input.response_types;
  if (responseTypes !== undefined && (!Array.isArray(responseTypes) || !responseTypes.every((type) => type === 'code'))) {
    return invalid('response_types may contain only "code" (with the authorization_code grant): there is no implicit or hybrid flow');
  }
  // RFC 8628: a client that signs people in only through the device grant has nowhere to redirect to. Its
  // redirect_uris are not registered (nor checked): nothing would ever be sent to them.
  const redirects = grantTypes.includes('authorization_code');
  const givenUris = redirects ? (input.redirect_uris ?? []) : [];
  if (!Array.isArray(givenUris) || (redirects && givenUris.length === 0)) {
    return { error: 'invalid_redirect_uri', error_description: 'redirect_uris must be a non-empty array' };
  }
  if (givenUris.length > MAX_REDIRECT_URIS) return { error: 'invalid_redirect_uri', error_description: `at most ${MAX_REDIRECT_URIS} redirect_uris` };
  for (const uri of givenUris) {
    const problem = checkRegisteredRedirectUri(uri);
    if (problem) return { error: 'invalid_redirect_uri', error_description: problem };
  }

  const text = (name: string, max: number): string | undefined | RegistrationError => {
    const value = input[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.length > max) return invalid(`${name} must be a string of at most ${max} characters`);
    return value;
  };
  const clientName = text('client_name', 100);
  if (typeof clientName === 'object') return clientName;
  const metadata: Record<string, unknown> = {};
  for (const [name, max] of [['client_uri', 2000], ['logo_uri', 2000], ['software_id', 200], ['software_version', 100]] as const) {
    const value = text(name, max);
    if (typeof value === 'object') return value;
    if (value !== undefined) metadata[name] = value;
  }
  for (const name of ['client_uri', 'logo_uri'] as const) {
    if (metadata[name] !== undefined && !/^https:\/\/\S+$/.test(String(metadata[name]))) return invalid(`${name} must be an https URL`);
  }
  // OpenID Connect Registration §2: RS256 when the client names none; ES256 when it asks (Portico signs with both).
  // Another algorithm is one the client would verify its ID tokens with: refused rather than replaced.
  const idTokenAlg = input.id_token_signed_response_alg ?? 'RS256';
  if (!(SIGNING_ALGORITHMS as readonly unknown[]).includes(idTokenAlg)) {
    return invalid(`id_token_signed_response_alg must be ${SIGNING_ALGORITHMS.map((alg) => `"${alg}"`).join(' or ')}`);
  }
  metadata.id_token_signed_response_alg = idTokenAlg;
  // OpenID Connect Back-Channel Logout 1.0 §2.2: where the client hears that a person's session with it ended.
  const logoutUri = input.backchannel_logout_uri;
  if (logoutUri !== undefined) {
    if (typeof logoutUri !== 'string' || logoutUri.length > 2000) return invalid('backchannel_logout_uri must be a string of at most 2000 characters');
    const checked = validateBackchannelLogoutUri(logoutUri);
    if (!checked.ok) return invalid(`backchannel_logout_uri: ${checked.error}`);
    metadata.backchannel_logout_uri = logoutUri;
  }
  const sessionRequired = input.backchannel_logout_session_required;
  if (sessionRequired !== undefined) {
    if (typeof sessionRequired !== 'boolean') return invalid('backchannel_logout_session_required must be a boolean');
    if (logoutUri === undefined) return invalid('backchannel_logout_session_required needs a backchannel_logout_uri');
    metadata.backchannel_logout_session_required = sessionRequired;
  }
  // RFC 8252: a client that redirects to loopback http or a private-use scheme is a native app. oidc-provider then
  // accepts those URIs and matches loopback ports flexibly (§7.3); a web client may only use https.
  const uris = [...new Set(givenUris as string[])];
  const native = uris.some((uri) => !uri.startsWith('https:'));
  if (native && uris.some((uri) => uri.startsWith('https:'))) {
    return { error: 'invalid_redirect_uri', error_description: 'do not mix https redirect URIs with loopback or private-use ones: register a web client or a native one' };
  }
  // OpenID Connect Registration §2 `application_type`, which MCP 2026-07-28 asks clients to send: honoured when it
  // fits the redirect URIs (a web client redirects over https only; a native one may also claim https URLs), and
  // derived from them when absent. A device-grant-only client has none to contradict it, and is native unless it
  // says otherwise (it runs on the person's device or server, RFC 8628).
  const declared = input.application_type;
  if (declared !== undefined && declared !== 'web' && declared !== 'native') return invalid('application_type must be "web" or "native"');
  if (declared === 'web' && native) {
    return { error: 'invalid_redirect_uri', error_description: 'a web client redirects to https URIs only: register loopback or private-use redirect URIs as application_type "native"' };
  }
  metadata.application_type = declared ?? (native || !redirects ? 'native' : 'web');
  return {
    clientName: clientName?.trim() || 'Unnamed MCP client',
    redirectUris: uris,
    grantTypes: [...new Set(grantTypes as string[])],
    metadata,
  };
}

export type RegistrationOutcome =
  | { kind: 'limited'; retryAfterSeconds: number }
  | { kind: 'invalid'; body: RegistrationError }
  | { kind: 'registered'; body: Record<string, unknown> };

/** Counts the attempt against both limits; call before the body is read. */
export async function checkRegistrationLimits(db: Database, limits: RegistrationLimits, clientIp: string): Promise<RegistrationOutcome | undefined> {
  // The global cap counts only what the per-IP limit let through: one noisy host cannot use it up for everyone.
  const perIp = await hitRateLimit(db, limits.perIp, clientIp);
  if (perIp.limited) return { kind: 'limited', retryAfterSeconds: perIp.retryAfterSeconds };
  const global = await hitRateLimit(db, limits.global, 'all');
  if (global.limited) return { kind: 'limited', retryAfterSeconds: global.retryAfterSeconds };
  return undefined;
}

export async function registerClient(db: Database, registration: ValidRegistration, clientIp: string): Promise<Record<string, unknown>> {
  const clientId = `dcr_${randomBytes(16).toString('base64url')}`;
  const issuedAt = Math.floor(Date.now() / 1000);
  await db.transaction(async (tx) => {
    await tx.insert(clients).values({
      id: clientId,
      kind: 'dynamic',
      type: 'public',
      name: registration.clientName,
      tokenEndpointAuthMethod: 'none',
      metadata: { ...registeredDefaults(), ...registration.metadata, grant_types: registration.grantTypes },
    });
    if (registration.redirectUris.length > 0) await tx.insert(redirectUris).values(registration.redirectUris.map((uri) => ({ clientId, uri })));
    await recordAuditEvent(tx, {
      orgId: null,
      actor: { type: 'client', id: clientId, label: registration.clientName, ip: clientIp },
      action: 'client.registered',
      subject: { type: 'client', id: clientId, label: registration.clientName },
      clientId,
      details: { redirectUris: registration.redirectUris, ...registration.metadata },
    });
  });
  // RFC 7591 §3.2.1: every registered value, defaults included (what oidc-provider loads for the client).
  return {
    client_id: clientId,
    client_id_issued_at: issuedAt,
    client_name: registration.clientName,
    redirect_uris: registration.redirectUris,
    grant_types: registration.grantTypes,
    response_types: registration.grantTypes.includes('authorization_code') ? ['code'] : [],
    token_endpoint_auth_method: 'none',
    ...registeredDefaults(),
    ...registration.metadata,
  };
}
