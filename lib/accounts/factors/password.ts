// Password hashing with argon2id, OWASP Password Storage Cheat Sheet parameters (m=19 MiB, t=2, p=1).
import { hash, verify, type Algorithm } from '@node-rs/argon2';

// 2 is Algorithm.Argon2id (a const enum, which isolated modules cannot read).
const PARAMETERS = { algorithm: 2 as Algorithm, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, PARAMETERS);
}

// Verifying against this when no account matches costs the same as a real check: response times
// do not reveal which emails have accounts.
let decoyHash: Promise<string> | undefined;

export async function verifyPassword(passwordHash: string | undefined, password: string): Promise<boolean> {
  decoyHash ??= hashPassword('portico-decoy-password-never-matches');
  const target = passwordHash ?? (await decoyHash);
  try {
    const matches = await verify(target, password);
    return matches && passwordHash !== undefined;
  } catch {
    return false;
  }
}
