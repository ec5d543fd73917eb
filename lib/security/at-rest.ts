// Encryption of key material at rest: compact JWE with direct key agreement and AES-256-GCM (RFC 7516, RFC 7518 §4.5).
// jose does the cryptography; this module only fixes the algorithms and turns failures into a clear message.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
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
