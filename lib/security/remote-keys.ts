// Public keys Portico fetches to verify JWTs signed elsewhere: an identity provider's ID-JAGs (lib/oidc/id-jag.ts),
// an external workload issuer's tokens (lib/oidc/workload-federation.ts) and an agent's client assertions when its
// keys are published at a JWKS URL (lib/clients/agent-clients.ts). Every fetch goes through the outbound guard (no
// private or loopback address unless the installation allows it, a timeout, a size cap). Low level: the outbound
// guard and jose only.
//
// Kept per process, five minutes: keys are public, and an issuer that withdraws a compromised key is heard within
// that window on every instance (the cached copy is the only state, and it expires). A `kid` the cached set lacks (the issuer rotated) fetches the
// set again at once, at most every 30 seconds per URL, so a flood of made-up `kid`s cannot make Portico a fetcher; a
// URL that failed is not asked again for 30 seconds, and meanwhile (up to an hour) the set last read still serves.
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTVerifyOptions, type JWTVerifyResult } from 'jose';
import { outboundFetch, type OutboundPolicy } from '../http/outbound';

export const KEYS_TTL_MS = 5 * 60_000;
export const REFETCH_COOLDOWN_MS = 30_000;
const MAX_CACHED_SETS = 1000;
/** A key set is small: a few keys. */
const JWKS_TIMEOUT_MS = 5_000;
const JWKS_MAX_BYTES = 64 * 1024;

interface CachedSet {
  set: JSONWebKeySet;
  fetchedAt: number;
}

const setsByUri = new Map<string, CachedSet>();
/** When a URL's last fetch failed: it is not asked again within the cooldown (each presentation would wait its timeout). */
const failedAtByUri = new Map<string, number>();
/** How long a set kept past its five minutes still serves while its issuer cannot be reached. */
export const STALE_KEYS_MAX_MS = 60 * 60_000;

/** The key set at `uri`, fetched through the outbound guard; throws when it cannot be read or is not a JWKS. */
async function fetchSet(uri: string, outbound: OutboundPolicy): Promise<CachedSet> {
  const failedAt = failedAtByUri.get(uri);
  if (failedAt !== undefined && Date.now() - failedAt < REFETCH_COOLDOWN_MS) throw new Error('the key set could not be read a moment ago');
  try {
    return await fetchSetNow(uri, outbound);
  } catch (error) {
    if (failedAtByUri.size >= MAX_CACHED_SETS) failedAtByUri.clear();
    failedAtByUri.set(uri, Date.now());
    throw error;
  }
}

/** The set at `uri` now, or the one kept (up to STALE_KEYS_MAX_MS old) when the issuer cannot be reached. */
async function currentSet(uri: string, outbound: OutboundPolicy): Promise<CachedSet> {
  const kept = setsByUri.get(uri);
  try {
    return await fetchSet(uri, outbound);
  } catch (error) {
    if (kept && Date.now() - kept.fetchedAt < STALE_KEYS_MAX_MS) return kept;
    throw error;
  }
}

async function fetchSetNow(uri: string, outbound: OutboundPolicy): Promise<CachedSet> {
  const response = await outboundFetch(outbound, { timeoutMs: JWKS_TIMEOUT_MS, maxBytes: JWKS_MAX_BYTES })(uri, { headers: { accept: 'application/json, application/jwk-set+json' } });
  if (response.status !== 200) throw new Error(`JWKS answered ${response.status}`);
  const body = (await response.json()) as unknown;
  const keys = (body as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new Error('the JWKS has no keys array');
  const cached = { set: { keys } as JSONWebKeySet, fetchedAt: Date.now() };
  if (setsByUri.size >= MAX_CACHED_SETS) setsByUri.clear();
  setsByUri.set(uri, cached);
  return cached;
}

/**
 * The key set at `uri`: cached for five minutes; fetched again sooner when `wantedKid` is not in it and the last
 * fetch is older than the cooldown.
 */
export async function remoteKeySet(uri: string, outbound: OutboundPolicy, wantedKid?: string): Promise<JSONWebKeySet> {
  const cached = setsByUri.get(uri);
  const fresh = cached && Date.now() - cached.fetchedAt < KEYS_TTL_MS ? cached : undefined;
  if (!fresh) return (await currentSet(uri, outbound)).set;
  const missing = wantedKid !== undefined && !fresh.set.keys.some((key) => key.kid === wantedKid);
  if (missing && Date.now() - fresh.fetchedAt > REFETCH_COOLDOWN_MS) return (await currentSet(uri, outbound)).set;
  return fresh.set;
}

/**
 * The keys of a set that may verify signatures: `use` absent or `sig`, and a SPIFFE bundle's `jwt-svid` keys (SPIFFE
 * Trust Domain and Bundle §4.2.2) read as `sig`; `x509-svid` and `enc` keys never verify a JWT.
 */
export function signingKeysOf(set: JSONWebKeySet): JSONWebKeySet {
  return {
    keys: set.keys
      .filter((key) => key.use === undefined || key.use === 'sig' || key.use === 'jwt-svid')
      .map((key) => (key.use === 'jwt-svid' ? { ...key, use: 'sig' } : key)),
  };
}

/**
 * Verifies `jwt` with the keys at `uri` (or the registered `keys`), refetching once for a `kid` the cached set lacks.
 * jose's errors pass through: the caller turns them into its protocol's answer.
 */
export async function verifyWithKeys(jwt: string, source: { uri: string; outbound: OutboundPolicy } | { keys: JSONWebKeySet }, options: JWTVerifyOptions): Promise<JWTVerifyResult> {
  if ('keys' in source) return jwtVerify(jwt, createLocalJWKSet(signingKeysOf(source.keys)), options);
  const cached = setsByUri.get(source.uri);
  const fresh = cached && Date.now() - cached.fetchedAt < KEYS_TTL_MS ? cached : undefined;
  try {
    return await jwtVerify(jwt, createLocalJWKSet(signingKeysOf((fresh ?? (await currentSet(source.uri, source.outbound))).set)), options);
  } catch (error) {
    if (fresh && error instanceof joseErrors.JWKSNoMatchingKey && Date.now() - fresh.fetchedAt > REFETCH_COOLDOWN_MS) {
      return jwtVerify(jwt, createLocalJWKSet(signingKeysOf((await currentSet(source.uri, source.outbound)).set)), options);
    }
    throw error;
  }
}

/** Tests: forget every cached set (a test's issuer rotates its keys within the cooldown). */
export function forgetRemoteKeys(): void {
  setsByUri.clear();
  failedAtByUri.clear();
}
