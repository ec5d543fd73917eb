// An organization's side of enterprise-managed authorization (lib/oidc/id-jag.ts does the protocol):
// - outside MCP servers its people reach with an ID-JAG from Portico (Portico issues), and
// - company identity providers whose ID-JAGs it accepts for its apps (Portico receives).
//
// The commands run inside the organization-operation kernel (`identity.manage`: owners), which gives the transaction
// and the one audit event. Reading an issuer's discovery document is the network half, done before (probeOidcIssuer).
import { and, asc, eq } from 'drizzle-orm';
import { type OrgOperationContext } from '../organizations/org-operation';
import type { Queryable } from '../db/client';
import { apps, identityConnections, remoteMcpServers, trustedAssertionIssuers } from '../db/schema';
import { localized } from '../i18n/catalogs';
import { isUuid } from '../util/uuid';
import { normalizeIssuer } from './connections';
import { commandRefusal } from '../organizations/refusal-codes';

type Context = Pick<OrgOperationContext, 'tx' | 'audit'> & { orgId: string };
export type RemoteMcpServer = typeof remoteMcpServers.$inferSelect;
export type TrustedAssertionIssuer = typeof trustedAssertionIssuers.$inferSelect;

export const MAX_REMOTE_MCP_SERVERS_PER_ORG = 50;
export const MAX_TRUSTED_ISSUERS_PER_ORG = 10;
/** An OAuth scope token (RFC 6749 §3.3): printable ASCII without space, quote or backslash. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,100}$/;

export interface RemoteMcpServerFields {
  name: string;
  authorizationServer: string;
  resource: string;
  remoteClientId: string;
  /** Space- or line-separated. */
  allowedScopes: string;
  permissionsAppId?: string | null;
}

function checkedUrl(raw: string, allowHttp: boolean, field: string): string {
  const value = normalizeIssuer(raw, allowHttp);
  if (!value) throw commandRefusal(400, localized('refusals.enterpriseAuthorization.invalidUrl'), field);
  return value;
}

/** Adds an outside MCP server: the ID-JAGs Portico issues for it name these values. */
export async function createRemoteMcpServer(ctx: Context, input: RemoteMcpServerFields, options: { allowHttp: boolean; ownIssuer: string }): Promise<RemoteMcpServer> {
  const name = input.name.trim();
  if (name.length < 1 || name.length > 100 || /[\u0000-\u001f\u007f]/.test(name)) throw commandRefusal(400, localized('refusals.enterpriseAuthorization.invalidName'), 'name');
  const authorizationServer = checkedUrl(input.authorizationServer, options.allowHttp, 'authorizationServer');
  // Draft §9.3: Portico does not hand itself ID-JAGs (its own apps are reached with its own tokens).
  if (authorizationServer === options.ownIssuer) throw commandRefusal(400, localized('refusals.enterpriseAuthorization.ownIssuer'), 'authorizationServer');
  const resource = checkedUrl(input.resource, options.allowHttp, 'resource');
  const remoteClientId = input.remoteClientId.trim();
  if (remoteClientId.length < 1 || remoteClientId.length > 2000 || /\s/.test(remoteClientId)) throw commandRefusal(400, localized('refusals.enterpriseAuthorization.invalidClientId'), 'remoteClientId');
  const allowedScopes = [...new Set(input.allowedScopes.split(/\s+/).filter(Boolean))];
  if (allowedScopes.length > 50 || !allowedScopes.every((scope) => SCOPE_TOKEN.test(scope))) throw commandRefusal(400, localized('refusals.enterpriseAuthorization.invalidScopes'), 'allowedScopes');
  let permissionsAppId: string | null = null;
  if (input.permissionsAppId) {
    const [app] = isUuid(input.permissionsAppId) ? await ctx.tx.select({ id: apps.id }).from(apps).where(and(eq(apps.id, input.permissionsAppId), eq(apps.orgId, ctx.orgId))).limit(1) : [];
    if (!app) throw commandRefusal(400, localized('refusals.enterpriseAuthorization.unknownApp'), 'permissionsAppId');
    permissionsAppId = app.id;
  }
  const existing = await ctx.tx.select({ name: remoteMcpServers.name, authorizationServer: remoteMcpServers.authorizationServer, resource: remoteMcpServers.resource }).from(remoteMcpServers).where(eq(remoteMcpServers.orgId, ctx.orgId));
  if (existing.length >= MAX_REMOTE_MCP_SERVERS_PER_ORG) throw commandRefusal(409, localized('refusals.enterpriseAuthorization.tooManyServers', { max: MAX_REMOTE_MCP_SERVERS_PER_ORG }), 'name');
  if (existing.some((row) => row.name.toLowerCase() === name.toLowerCase())) throw commandRefusal(409, localized('refusals.enterpriseAuthorization.nameTaken', { name }), 'name');
  if (existing.some((row) => row.authorizationServer === authorizationServer && row.resource === resource)) throw commandRefusal(409, localized('refusals.enterpriseAuthorization.serverTaken'), 'resource');
  const [created] = await ctx.tx.insert(remoteMcpServers).values({ orgId: ctx.orgId, name, authorizationServer, resource, remoteClientId, allowedScopes, permissionsAppId }).onConflictDoNothing().returning();
  // A concurrent twin committed first: the unique keys held, say so as the checks above would have.
  if (!created) throw commandRefusal(409, localized('refusals.enterpriseAuthorization.serverTaken'), 'resource');
  await ctx.audit({
    action: 'identity.remote_mcp_server_added',
    subject: { type: 'remote_mcp_server', id: created.id, label: created.name },
    details: { authorizationServer, resource, remoteClientId, allowedScopes, permissionsAppId },
  });
  return created;
}

export async function deleteRemoteMcpServer(ctx: Context, serverId: string): Promise<void> {
  const [removed] = isUuid(serverId) ? await ctx.tx.delete(remoteMcpServers).where(and(eq(remoteMcpServers.orgId, ctx.orgId), eq(remoteMcpServers.id, serverId))).returning() : [];
  if (!removed) throw commandRefusal(404, localized('refusals.enterpriseAuthorization.notFound'), 'not_found');
  await ctx.audit({ action: 'identity.remote_mcp_server_removed', subject: { type: 'remote_mcp_server', id: removed.id, label: removed.name }, details: { authorizationServer: removed.authorizationServer, resource: removed.resource } });
}

export async function listRemoteMcpServers(db: Queryable, orgId: string): Promise<RemoteMcpServer[]> {
  return db.select().from(remoteMcpServers).where(eq(remoteMcpServers.orgId, orgId)).orderBy(asc(remoteMcpServers.name));
}

export type TrustSource = ({ connectionId: string } | { issuer: string; jwksUri: string }) & { tenant?: string };

/**
 * Trusts a company identity provider's ID-JAGs for the organization's apps: one of its OpenID Connect connections
 * (subjects are the people linked through it), or an issuer and its JWKS URI (subjects by address, at the
 * organization's verified domains).
 */
export async function trustAssertionIssuer(ctx: Context, source: TrustSource, options: { allowHttp: boolean; ownIssuer: string }): Promise<TrustedAssertionIssuer> {
  let values: { connectionId: string | null; issuer: string; jwksUri: string | null; tenant: string | null };
  const tenant = source.tenant?.trim() || null;
  if (tenant !== null && (tenant.length > 200 || /[\u0000-\u0020\u007f]/.test(tenant))) throw commandRefusal(400, localized('refusals.enterpriseAuthorization.invalidTenant'), 'tenant');
  if ('connectionId' in source) {
    const [connection] = isUuid(source.connectionId)
      ? await ctx.tx.select().from(identityConnections).where(and(eq(identityConnections.orgId, ctx.orgId), eq(identityConnections.id, source.connectionId))).limit(1)
      : [];
    if (!connection) throw commandRefusal(404, localized('refusals.connections.notFound'), 'connectionId');
    if (connection.kind !== 'oidc' || !connection.oidcIssuer) throw commandRefusal(400, localized('refusals.enterpriseAuthorization.samlCannotIssue'), 'connectionId');
    values = { connectionId: connection.id, issuer: connection.oidcIssuer, jwksUri: null, tenant };
  } else {
    values = { connectionId: null, issuer: checkedUrl(source.issuer, options.allowHttp, 'issuer'), jwksUri: checkedUrl(source.jwksUri, options.allowHttp, 'jwksUri'), tenant };
  }
  // Draft §9.3: never an ID-JAG this Portico issued (any of its organizations).
  if (values.issuer === options.ownIssuer) throw commandRefusal(400, localized('refusals.enterpriseAuthorization.ownIssuer'), 'connectionId' in source ? 'connectionId' : 'issuer');
  const existing = await ctx.tx.select({ issuer: trustedAssertionIssuers.issuer, tenant: trustedAssertionIssuers.tenant }).from(trustedAssertionIssuers).where(eq(trustedAssertionIssuers.orgId, ctx.orgId));
  if (existing.length >= MAX_TRUSTED_ISSUERS_PER_ORG) throw commandRefusal(409, localized('refusals.enterpriseAuthorization.tooManyIssuers', { max: MAX_TRUSTED_ISSUERS_PER_ORG }), 'issuer');
  const [created] = existing.some((row) => row.issuer === values.issuer && row.tenant === values.tenant) ? [] : await ctx.tx.insert(trustedAssertionIssuers).values({ orgId: ctx.orgId, ...values }).onConflictDoNothing().returning();
  if (!created) throw commandRefusal(409, localized('refusals.enterpriseAuthorization.issuerTaken', { issuer: values.issuer }), 'connectionId' in source ? 'connectionId' : 'issuer');
  await ctx.audit({ action: 'identity.assertion_issuer_trusted', subject: { type: 'trusted_assertion_issuer', id: created.id, label: created.issuer }, details: values });
  return created;
}

export async function removeTrustedAssertionIssuer(ctx: Context, trustId: string): Promise<void> {
  const [removed] = isUuid(trustId) ? await ctx.tx.delete(trustedAssertionIssuers).where(and(eq(trustedAssertionIssuers.orgId, ctx.orgId), eq(trustedAssertionIssuers.id, trustId))).returning() : [];
  if (!removed) throw commandRefusal(404, localized('refusals.enterpriseAuthorization.notFound'), 'not_found');
  await ctx.audit({ action: 'identity.assertion_issuer_untrusted', subject: { type: 'trusted_assertion_issuer', id: removed.id, label: removed.issuer }, details: { connectionId: removed.connectionId } });
}

export async function listTrustedAssertionIssuers(db: Queryable, orgId: string): Promise<(TrustedAssertionIssuer & { connectionName: string | null })[]> {
  const rows = await db
    .select({ trust: trustedAssertionIssuers, connectionName: identityConnections.name })
    .from(trustedAssertionIssuers)
    .leftJoin(identityConnections, eq(identityConnections.id, trustedAssertionIssuers.connectionId))
    .where(eq(trustedAssertionIssuers.orgId, orgId))
    .orderBy(asc(trustedAssertionIssuers.issuer));
  return rows.map((row) => ({ ...row.trust, connectionName: row.connectionName }));
}
