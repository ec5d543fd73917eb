// Key credentials of an agent: the public keys of its own OAuth client (client_id = the agent's id), which
// authenticates with private_key_jwt (RFC 7523 §2.2) for the client-credentials grant. Public keys only — a private
// member is refused — so nothing secret about the agent is ever stored; or a JWKS URL where the agent's platform
// publishes them (fetched through the outbound guard, lib/security/remote-keys.ts).
//
// Rotation with overlap: add the new key, move the workload to it, remove the old one; both verify meanwhile.
import { and, asc, eq } from 'drizzle-orm';
import { calculateJwkThumbprint, exportJWK, importJWK, importSPKI, type JWK } from 'jose';
import type { Queryable } from '../db/client';
import { agentKeys, agents } from '../db/schema';

export type AgentKey = typeof agentKeys.$inferSelect;
export type AgentKeyAlg = AgentKey['alg'];
export const AGENT_KEY_ALGS: readonly AgentKeyAlg[] = ['ES256', 'RS256', 'PS256', 'EdDSA'];
/** At most this many keys at once: enough to rotate, few enough to read. */
export const MAX_AGENT_KEYS = 5;

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

export type KeyRefusal = 'unreadable' | 'private' | 'symmetric' | 'alg' | 'kid';

export const KEY_REFUSAL_TEXT: Record<KeyRefusal, string> = {
  unreadable: 'paste a public key: a JWK (JSON) or a PEM "PUBLIC KEY" block',
  private: 'this is a private key: paste only the public key (the private key never leaves the workload)',
  symmetric: 'only asymmetric keys (EC P-256, RSA of 2048 bits or more, Ed25519): a shared secret would be stored here',
  alg: 'the algorithm must be ES256 (EC P-256), RS256 or PS256 (RSA), or EdDSA (Ed25519), and fit the key',
  kid: 'the key id (kid) must be 1-200 printable characters',
};

/** The algorithm a key fits, when it names none. */
function defaultAlg(jwk: JWK): AgentKeyAlg | undefined {
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256';
  if (jwk.kty === 'RSA') return 'RS256';
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA';
  return undefined;
}

function fits(jwk: JWK, alg: AgentKeyAlg): boolean {
  if (alg === 'ES256') return jwk.kty === 'EC' && jwk.crv === 'P-256';
  if (alg === 'EdDSA') return jwk.kty === 'OKP' && jwk.crv === 'Ed25519';
  // RFC 7518 §3.3: RSA keys of 2048 bits or more (the modulus, base64url: 342 characters and up).
  return jwk.kty === 'RSA' && typeof jwk.n === 'string' && jwk.n.length >= 342;
}

/**
 * The public key as a JWK with its `kid` and `alg`, from a JWK or a PEM SPKI block; or why not. The `kid` is the
 * key's own when it has one, else its RFC 7638 thumbprint.
 */
export async function readPublicKey(text: string, requestedAlg?: string): Promise<{ ok: true; jwk: JWK & { kid: string; alg: AgentKeyAlg } } | { ok: false; refusal: KeyRefusal }> {
  const trimmed = text.trim();
  if (requestedAlg !== undefined && requestedAlg !== '' && !(AGENT_KEY_ALGS as readonly string[]).includes(requestedAlg)) return { ok: false, refusal: 'alg' };
  let jwk: JWK;
  if (trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      return { ok: false, refusal: 'unreadable' };
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { ok: false, refusal: 'unreadable' };
    jwk = parsed as JWK;
    if (jwk.kty === 'oct') return { ok: false, refusal: 'symmetric' };
    if (PRIVATE_MEMBERS.some((member) => member in (jwk as Record<string, unknown>))) return { ok: false, refusal: 'private' };
    if (!['EC', 'RSA', 'OKP'].includes(String(jwk.kty))) return { ok: false, refusal: 'unreadable' };
  } else if (/-----BEGIN PUBLIC KEY-----/.test(trimmed)) {
    const alg = (requestedAlg || undefined) as AgentKeyAlg | undefined;
    // The PEM names no algorithm: try the ones a key of its type could have.
    const tries: AgentKeyAlg[] = alg ? [alg] : ['ES256', 'RS256', 'EdDSA'];
    let exported: JWK | undefined;
    for (const candidate of tries) {
      try {
        exported = await exportJWK(await importSPKI(trimmed, candidate, { extractable: true }));
        break;
      } catch {
        // not this type
      }
    }
    if (!exported) return { ok: false, refusal: alg ? 'alg' : 'unreadable' };
    jwk = exported;
  } else if (/PRIVATE KEY-----/.test(trimmed)) {
    return { ok: false, refusal: 'private' };
  } else {
    return { ok: false, refusal: 'unreadable' };
  }
  const alg = ((requestedAlg || jwk.alg) ?? defaultAlg(jwk)) as AgentKeyAlg | undefined;
  if (!alg || !(AGENT_KEY_ALGS as readonly string[]).includes(alg) || !fits(jwk, alg)) return { ok: false, refusal: 'alg' };
  // The key must be usable as what it claims (a malformed point or modulus fails here, not at the first token).
  try {
    await importJWK({ ...jwk, alg }, alg);
  } catch {
    return { ok: false, refusal: 'unreadable' };
  }
  const kid = typeof jwk.kid === 'string' && jwk.kid.length > 0 ? jwk.kid : await calculateJwkThumbprint(jwk, 'sha256');
  if (kid.length > 200 || !/^[\x21-\x7e]+$/.test(kid)) return { ok: false, refusal: 'kid' };
  const { kty, crv, x, y, n, e } = jwk;
  const publicOnly = Object.fromEntries(Object.entries({ kty, crv, x, y, n, e }).filter(([, value]) => value !== undefined)) as JWK;
  return { ok: true, jwk: { ...publicOnly, kid, alg, use: 'sig' } as JWK & { kid: string; alg: AgentKeyAlg } };
}

export async function listAgentKeys(db: Queryable, agentId: string): Promise<AgentKey[]> {
  return db.select().from(agentKeys).where(eq(agentKeys.agentId, agentId)).orderBy(asc(agentKeys.createdAt), asc(agentKeys.id));
}

export async function addAgentKey(db: Queryable, input: { agentId: string; orgId: string; jwk: JWK & { kid: string; alg: AgentKeyAlg }; createdByUserId: string | null }): Promise<AgentKey | undefined> {
  const [key] = await db
    .insert(agentKeys)
    .values({ agentId: input.agentId, orgId: input.orgId, kid: input.jwk.kid, alg: input.jwk.alg, publicJwk: input.jwk as Record<string, unknown>, createdByUserId: input.createdByUserId })
    .onConflictDoNothing()
    .returning();
  return key;
}

export async function removeAgentKey(db: Queryable, agentId: string, keyId: string): Promise<AgentKey | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(keyId)) return undefined;
  const [key] = await db.delete(agentKeys).where(and(eq(agentKeys.agentId, agentId), eq(agentKeys.id, keyId))).returning();
  return key;
}

export async function setAgentJwksUri(db: Queryable, agentId: string, jwksUri: string | null): Promise<void> {
  await db.update(agents).set({ jwksUri }).where(eq(agents.id, agentId));
}
