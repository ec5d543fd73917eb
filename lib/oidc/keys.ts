// Signing and cookie keys: generated once, stored in the database with private parts encrypted at rest,
// loaded by every instance, so a restart or a second instance serves the same JWKS `kid`.
import { randomBytes } from 'node:crypto';
import { isNull, sql } from 'drizzle-orm';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Database } from '../db/client';
import { cookieKeys, signingKeys } from '../db/schema';
import { decryptAtRest, encryptAtRest } from '../security/at-rest';

/** ES256 signs access tokens; RS256 is published too because it is the default ID token algorithm (OIDC Core §15.1). */
export const SIGNING_ALGORITHMS = ['ES256', 'RS256'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

// Any fixed number shared by all instances: the first to start generates keys, the others wait and read them.
const KEY_BOOTSTRAP_LOCK = 727_002;

export interface KeyMaterial {
  /** Private JWKs, one per algorithm, in SIGNING_ALGORITHMS order. */
  signingKeys: JWK[];
  /** Newest first: the first signs cookies, all verify. */
  cookieKeys: string[];
}

async function newSigningKey(alg: SigningAlgorithm, secretKey: Uint8Array) {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'RS256' ? { modulusLength: 2048 } : {}) });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' };
  return {
    kid,
    alg,
    publicJwk: { ...publicJwk, kid, alg, use: 'sig' },
    privateJwkEncrypted: await encryptAtRest(JSON.stringify(privateJwk), secretKey),
  };
}

export async function loadOrCreateKeyMaterial(db: Database, secretKey: Uint8Array): Promise<KeyMaterial> {
  const rows = await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${KEY_BOOTSTRAP_LOCK})`);
    const active = await tx.select().from(signingKeys).where(isNull(signingKeys.retiredAt)).orderBy(signingKeys.createdAt);
    for (const alg of SIGNING_ALGORITHMS) {
      if (!active.some((key) => key.alg === alg)) {
        const [created] = await tx.insert(signingKeys).values(await newSigningKey(alg, secretKey)).returning();
        if (created) active.push(created);
      }
    }
    let cookies = await tx.select().from(cookieKeys).orderBy(sql`${cookieKeys.id} desc`);
    if (cookies.length === 0) {
      cookies = await tx
        .insert(cookieKeys)
        .values({ keyEncrypted: await encryptAtRest(randomBytes(32).toString('base64url'), secretKey) })
        .returning();
    }
    return { active, cookies };
  });

  const signing: JWK[] = [];
  for (const alg of SIGNING_ALGORITHMS) {
    const row = rows.active.find((key) => key.alg === alg);
    if (row) signing.push(JSON.parse(await decryptAtRest(row.privateJwkEncrypted, secretKey)) as JWK);
  }
  const cookies = await Promise.all(rows.cookies.map((row) => decryptAtRest(row.keyEncrypted, secretKey)));
  return { signingKeys: signing, cookieKeys: cookies };
}

/** The public halves of the signing keys (what /oidc/jwks serves), for verifying Portico's own tokens locally. */
export function publicJwksOf(material: KeyMaterial): JWK[] {
  return material.signingKeys.map(({ kty, crv, x, y, n, e, kid, alg, use }) => ({ kty, crv, x, y, n, e, kid, alg, use }));
}
