// Encryption of key material at rest: compact JWE with direct key agreement and AES-256-GCM (RFC 7516, RFC 7518 §4.5).
// jose does the cryptography, but for the one hot seal (encryptAtRestNow, node:crypto, the same format); this module
// fixes the algorithms and turns failures into a clear message.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createCipheriv, randomBytes, randomFillSync } from 'node:crypto';
import { CompactEncrypt, compactDecrypt } from 'jose';
import { preparePrivateFolder } from '../db/data-folder';

export class SecretKeyMismatchError extends Error {
  constructor() {
    super(
      'The key material stored in the database cannot be decrypted with this PORTICO_SECRET_KEY. ' +
        'Every instance must use the secret the database was first started with (see docs in README: "Secret key").',
    );
    this.name = 'SecretKeyMismatchError';
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export async function encryptAtRest(plaintext: string, key: Uint8Array): Promise<string> {
  return new CompactEncrypt(encoder.encode(plaintext)).setProtectedHeader({ alg: 'dir', enc: 'A256GCM' }).encrypt(key);
}

/** The protected header every at-rest JWE carries, base64url-encoded: also the AAD of its encryption (RFC 7516 §5.1). */
const DIR_A256GCM_HEADER = Buffer.from(JSON.stringify({ alg: 'dir', enc: 'A256GCM' })).toString('base64url');

/**
 * The same compact JWE as `encryptAtRest` (dir + A256GCM, RFC 7516 §7.1, RFC 7518 §5.3: a 96-bit random IV, a 128-bit
 * tag, no encrypted key), made synchronously with node:crypto, for the one hot path that seals: every refresh seals
 * its successor (lib/oidc/stored-ids.ts). jose goes through WebCrypto, whose key import and asynchronous job cost a
 * refresh about as much as signing its ID token (the profile in docs/benchmarks.md). What this writes, jose opens
 * (`decryptAtRest`, and the test beside it): one format, one reader.
 */
export function encryptAtRestNow(plaintext: string, key: Uint8Array): string {
  if (key.length !== 32) throw new TypeError('an A256GCM key has 256 bits');
  const iv = freshIv();
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(DIR_A256GCM_HEADER, 'ascii'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${DIR_A256GCM_HEADER}..${iv.toString('base64url')}.${ciphertext.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
}

/**
 * IVs are drawn from a pool of random bytes refilled 4,092 bytes (341 IVs) at a time: asking OpenSSL for 12 bytes
 * costs about what asking it for 4 KiB does (a few µs either way), once per refresh (measured: docs/benchmarks.md).
 * No byte of the pool is handed out twice, so every IV is a fresh 96-bit random value, as `randomBytes(12)` gave
 * (RFC 7518 §5.3; NIST SP 800-38D §8.2.2, the random construction); the caller gets a copy, which the pool's next
 * refill cannot change.
 */
const IV_BYTES = 12;
const ivPool = Buffer.alloc(IV_BYTES * 341);
let ivPoolOffset = ivPool.length;
export function freshIv(): Buffer {
  if (ivPoolOffset + IV_BYTES > ivPool.length) {
    randomFillSync(ivPool);
    ivPoolOffset = 0;
  }
  const iv = Buffer.from(ivPool.subarray(ivPoolOffset, ivPoolOffset + IV_BYTES));
  ivPoolOffset += IV_BYTES;
  return iv;
}

export async function decryptAtRest(jwe: string, key: Uint8Array): Promise<string> {
  try {
    const { plaintext } = await compactDecrypt(jwe, key, { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] });
    return decoder.decode(plaintext);
  } catch {
    throw new SecretKeyMismatchError();
  }
}

/**
 * The 256-bit key that encrypts key material at rest: PORTICO_SECRET_KEY when given, otherwise a key generated
 * once into the data folder (mode 0600) so that a single-machine install needs no setup.
 */
export function resolveSecretKey(configured: string | undefined, dataDir: string): { key: Uint8Array; source: 'environment' | 'generated' | 'data-folder' } {
  if (configured) return { key: Buffer.from(configured, 'base64url'), source: 'environment' };
  const file = path.join(dataDir, 'secret.key');
  try {
    const stored = readFileSync(file, 'utf8').trim();
    if (!/^[A-Za-z0-9_-]{43}$/.test(stored)) throw new Error(`${file} does not hold a base64url 32-byte key`);
    return { key: Buffer.from(stored, 'base64url'), source: 'data-folder' };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  preparePrivateFolder(dataDir);
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  return { key, source: 'generated' };
}
