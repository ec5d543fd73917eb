// How oidc-provider's models are keyed at rest. For most models the id *is* the secret: a refresh token, an
// authorization code, an opaque access token, a session cookie's value, an interaction, a device or backchannel code.
// The adapter stores them under the SHA-256 of the id and never the id itself (not in the key, not in the payload's
// `jti`), and looks a presented value up by its hash. A copy of the database — a backup, a read replica, the
// embedded database's files read by another local account — holds nothing that can be redeemed. The values are
// random (≥ 256 bits), so a plain hash is enough: there is nothing to guess from it.
//
// Grants are the exception: a grant's id is a reference that other rows and Portico's own tables carry (grant_id,
// grant bindings), never presented by anyone as a credential.
import { createHmac, hash, timingSafeEqual } from 'node:crypto';
import { decryptAtRest, encryptAtRestNow } from '../security/at-rest';

/** Models stored under their own id (see above). */
const STORED_AS_IS = new Set(['Grant']);

/** Whether the adapter keeps this model under the hash of its id. */
export function storedHashed(kind: string): boolean {
  return !STORED_AS_IS.has(kind);
}

/**
 * A device code found by its user code (the person's side of RFC 8628) comes without its value, which only the device
 * holds. oidc-provider saves it back (in flight, then with the person's answer) and keeps its id in the interaction,
 * so it is given a reference instead: `ref.<stored hash>.<HMAC of the hash under the installation's key>`. Only the
 * adapter makes references, and a reference is never accepted at the token endpoint (lib/oidc/adapter.ts): a hash
 * read from a copy of the database cannot be presented as a device code.
 */
export function referenceTo(storedId: string, key: Uint8Array): string {
  return `ref.${storedId}.${createHmac('sha256', key).update(`portico stored reference\0${storedId}`).digest('base64url')}`;
}

/** The stored id a reference names, when it is one this installation made. */
export function openReference(value: string, key: Uint8Array): string | undefined {
  const match = /^ref\.([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (!match) return undefined;
  const expected = Buffer.from(referenceTo(match[1]!, key));
  const given = Buffer.from(value);
  return expected.length === given.length && timingSafeEqual(expected, given) ? match[1] : undefined;
}

/** SHA-256, base64url without padding (43 characters): the same in SQL (migration 0028) and here. */
export function hashStoredId(value: string): string {
  return hash('sha256', value, 'base64url');
}

/** The id a model is stored under. */
export function storedIdOf(kind: string, id: string): string {
  return storedHashed(kind) ? hashStoredId(id) : id;
}

/**
 * A payload as stored: without the secret id (`jti`) of a hashed model. (A device flow's user code stays: it is what
 * the person types to approve a device on their own signed-in account, not a credential of theirs.)
 */
export function storablePayload<T extends { jti?: unknown }>(kind: string, payload: T): T {
  if (!storedHashed(kind)) return payload;
  const { jti: _jti, ...rest } = payload;
  return rest as T;
}

/**
 * A rotated refresh token's successor, sealed for a replay of the token it replaced: a replay inside the grace
 * interval must get the very same successor back (lib/oidc/provider-overrides.ts, deviation 2), and the successor's
 * value is not stored. The key is derived from the replaced token's value, which only its holder presents and the
 * database holds only a hash of: the database alone opens nothing.
 */
function replayKey(replacedToken: string): Uint8Array {
  return hash('sha256', `portico refresh-token successor\0${replacedToken}`, 'buffer');
}

export function sealSuccessor(successor: string, replacedToken: string): string {
  return encryptAtRestNow(successor, replayKey(replacedToken));
}

/** The successor's value, or undefined when the seal does not open with this token (or there is none). */
export async function openSuccessor(sealed: string | null, replacedToken: string): Promise<string | undefined> {
  if (!sealed) return undefined;
  try {
    return await decryptAtRest(sealed, replayKey(replacedToken));
  } catch {
    return undefined;
  }
}
