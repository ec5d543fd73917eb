// Standard Webhooks signatures (https://www.standardwebhooks.com, spec v1): the signed content is
// `${webhook-id}.${webhook-timestamp}.${body}`, signed with HMAC-SHA256 under the base64 key after `whsec_`, sent as
// `v1,<base64>`; several signatures are separated by spaces, which is how a rotation overlaps: while the previous
// secret is still valid, both sign, so a receiver that still holds the old one keeps verifying.
import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** A new signing secret: 32 random bytes (the spec asks for 24 to 64), shown once to the admin. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('not a webhook secret');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/** The `webhook-signature` header: one `v1,…` per secret, space-separated. */
export function webhookSignature(secrets: readonly string[], messageId: string, timestampSeconds: number, body: string): string {
  const content = `${messageId}.${timestampSeconds}.${body}`;
  return secrets.map((secret) => `v1,${createHmac('sha256', keyOf(secret)).update(content).digest('base64')}`).join(' ');
}
