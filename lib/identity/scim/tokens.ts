// The organization's SCIM bearer token (RFC 7644 §2): made and revoked in the console, through the org-operation
// kernel, shown once; only its SHA-256 is stored.
import { createHash, randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { OrgOperationContext } from '../../organizations/org-operation';
import type { Queryable } from '../../db/client';
import { scimTokens } from '../../db/schema';

export const SCIM_TOKEN_PREFIX = 'scim_';

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

type TokenContext = Pick<OrgOperationContext, 'tx' | 'audit'> & { orgId: string; userId?: string };

/** Makes the organization's SCIM token (replacing the one it had): the token, to be shown once. */
export async function issueScimToken(ctx: TokenContext): Promise<string> {
  const token = `${SCIM_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const replaced = await ctx.tx.delete(scimTokens).where(eq(scimTokens.orgId, ctx.orgId)).returning({ id: scimTokens.id });
  await ctx.tx.insert(scimTokens).values({ orgId: ctx.orgId, tokenHash: sha256(token), createdBy: ctx.userId ?? null });
  await ctx.audit({ action: 'identity.scim_token_issued', subject: { type: 'scim_token', id: ctx.orgId }, details: { replaced: replaced.length > 0 } });
  return token;
}

export async function revokeScimToken(ctx: TokenContext): Promise<void> {
  const removed = await ctx.tx.delete(scimTokens).where(eq(scimTokens.orgId, ctx.orgId)).returning({ id: scimTokens.id });
  await ctx.audit({ action: 'identity.scim_token_revoked', subject: { type: 'scim_token', id: ctx.orgId }, details: { existed: removed.length > 0 } });
}

export async function scimTokenOf(db: Queryable, orgId: string): Promise<{ createdAt: Date; lastUsedAt: Date | null } | undefined> {
  const [row] = await db.select({ createdAt: scimTokens.createdAt, lastUsedAt: scimTokens.lastUsedAt }).from(scimTokens).where(eq(scimTokens.orgId, orgId)).limit(1);
  return row;
}

/** The organization a bearer token provisions, or undefined (RFC 7644 §2: 401 then). */
export async function organizationOfScimToken(db: Queryable, authorization: string | null): Promise<string | undefined> {
  const match = /^Bearer\s+(scim_[A-Za-z0-9_-]{43})$/i.exec(authorization?.trim() ?? '');
  if (!match) return undefined;
  const [row] = await db
    .update(scimTokens)
    .set({ lastUsedAt: sql`now()` })
    .where(eq(scimTokens.tokenHash, sha256(match[1]!)))
    .returning({ orgId: scimTokens.orgId });
  return row?.orgId;
}
