// An organization's enterprise connections: its company identity provider, through OpenID Connect (issuer discovery,
// Portico as a confidential client there) or SAML 2.0 (lib/identity/federation/saml.ts). A connection signs in the people whose
// address is at one of its domains, and only a verified domain of the same organization can be tied to it
// (lib/identity/domains.ts): that is what stops an organization from claiming somebody else's people.
//
// The commands run once for every door (the console's Settings → Identity); the caller authorized `identity.manage`
// through the organization-operation kernel, which gives the transaction and the one audit event. Talking to the
// identity provider (discovery) is the network half, done before the transaction (probeOidcIssuer).
import { and, asc, eq, inArray, isNotNull, notInArray, sql } from 'drizzle-orm';
import * as oidcClient from 'openid-client';
import { type OrgOperationContext } from '../organizations/org-operation';
import type { Queryable } from '../db/client';
import { identityConnections, orgDomains, teams } from '../db/schema';
import { outboundFetch, OutboundRefused, type OutboundPolicy, type OutboundRefusalReason } from '../http/outbound';
import { localized } from '../i18n/catalogs';
import { decryptAtRest, encryptAtRest } from '../security/at-rest';
import { isUuid } from '../util/uuid';
import { normalizeDomain } from './domains';
import { parseCertificates, type IdpMetadata } from './saml-metadata';
import { commandRefusal } from '../organizations/refusal-codes';

export type IdentityConnection = typeof identityConnections.$inferSelect;
export type ConnectionKind = IdentityConnection['kind'];

export const MAX_CONNECTIONS_PER_ORG = 10;
/** A claim or attribute name: an identifier, a URI (SAML attribute names often are), nothing else. */
const CLAIM_NAME = /^[A-Za-z0-9_:./-]{1,200}$/;
const DISCOVERY_TIMEOUT_MS = 5_000;
const DISCOVERY_MAX_BYTES = 256 * 1024;

type Context = Pick<OrgOperationContext, 'tx' | 'audit'> & { orgId: string };

export interface ConnectionDeps {
  outbound: OutboundPolicy;
  atRestKey: Uint8Array;
}

/** The fetch every request to a company's identity provider goes through: the outbound guard, capped. */
export function identityProviderFetch(outbound: OutboundPolicy): typeof fetch {
  return outboundFetch(outbound, { timeoutMs: DISCOVERY_TIMEOUT_MS, maxBytes: DISCOVERY_MAX_BYTES });
}

/** The issuer as typed, or undefined when it cannot be one: an https URL without query or fragment (OIDC Discovery §2). */
export function normalizeIssuer(raw: string, allowHttp = false): string | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) return undefined;
  if (url.search || url.hash || url.username || url.password) return undefined;
  // The issuer is compared exactly with what its discovery document says: kept as typed, without a trailing slash
  // added or removed by URL parsing ('https://idp.example' parses to 'https://idp.example/').
  const typed = raw.trim();
  return typed.length <= 500 ? typed : undefined;
}

export interface OidcConnectionFields {
  name: string;
  issuer: string;
  clientId: string;
  /** Required when the connection is made; on a change, empty keeps the stored one. */
  clientSecret: string;
  defaultRole: 'member' | 'admin';
  emailClaim: string;
  nameClaim: string;
  groupsClaim: string;
}

/** What the identity provider's discovery said (the network half), for the command to record. */
export interface IssuerProbe {
  issuer: string;
  ok: true;
}

/**
 * Reads the issuer's discovery document through the outbound guard (openid-client checks that the document names
 * the same issuer, OIDC Discovery §4.3). Refused, next to the issuer field, when it cannot be read or is not one.
 */
export async function probeOidcIssuer(outbound: OutboundPolicy, rawIssuer: string): Promise<IssuerProbe> {
  const issuer = normalizeIssuer(rawIssuer, outbound.allowLoopback);
  if (!issuer) throw commandRefusal(400, localized('refusals.connections.invalidIssuer'), 'invalid_issuer');
  try {
    const configuration = await discover(outbound, { oidcIssuer: issuer, oidcClientId: 'portico-probe' }, undefined);
    const metadata = configuration.serverMetadata();
    if (!metadata.authorization_endpoint || !metadata.token_endpoint || !metadata.jwks_uri) throw new Error('incomplete metadata');
    if (metadata.code_challenge_methods_supported && !metadata.code_challenge_methods_supported.includes('S256')) throw new Error('no S256');
  } catch (error) {
    // openid-client wraps what its fetch threw: a private address the installation does not allow says which setting would.
    if (refusedFor(error, 'private_network')) throw commandRefusal(400, localized('refusals.connections.privateNetwork', { issuer }), 'invalid_issuer');
    throw commandRefusal(400, localized('refusals.connections.discoveryFailed', { issuer }), 'invalid_issuer');
  }
  return { issuer, ok: true };
}

/** Whether an error, or one it wraps, is the outbound guard's refusal for this reason. */
function refusedFor(error: unknown, reason: OutboundRefusalReason): boolean {
  for (let current = error, depth = 0; current && depth < 4; current = (current as { cause?: unknown }).cause, depth += 1) {
    if (current instanceof OutboundRefused && current.reason === reason) return true;
  }
  return false;
}

/** openid-client's configuration for a connection: discovery through the outbound guard (PKCE S256 is always used). */
export async function discover(
  outbound: OutboundPolicy,
  connection: { oidcIssuer: string | null; oidcClientId: string | null },
  clientSecret: string | undefined,
): Promise<oidcClient.Configuration> {
  const options: oidcClient.DiscoveryRequestOptions = { [oidcClient.customFetch]: identityProviderFetch(outbound) as unknown as oidcClient.CustomFetch, algorithm: 'oidc', timeout: DISCOVERY_TIMEOUT_MS / 1000 };
  // Plain http only where the outbound guard itself allows loopback addresses (development and tests).
  if (outbound.allowLoopback && connection.oidcIssuer?.startsWith('http:')) options.execute = [oidcClient.allowInsecureRequests];
  return oidcClient.discovery(new URL(connection.oidcIssuer!), connection.oidcClientId!, undefined, clientSecret === undefined ? oidcClient.None() : oidcClient.ClientSecretBasic(clientSecret), options);
}

export async function clientSecretOf(connection: IdentityConnection, atRestKey: Uint8Array): Promise<string | undefined> {
  return connection.oidcClientSecretSealed ? decryptAtRest(connection.oidcClientSecretSealed, atRestKey) : undefined;
}

function checkedMapping(input: Pick<OidcConnectionFields, 'emailClaim' | 'nameClaim' | 'groupsClaim'>) {
  const fields = { emailClaim: input.emailClaim.trim(), nameClaim: input.nameClaim.trim(), groupsClaim: input.groupsClaim.trim() };
  for (const [field, value] of Object.entries(fields)) {
    if (!CLAIM_NAME.test(value)) throw commandRefusal(400, localized('refusals.connections.invalidClaim'), field);
  }
  return fields;
}

function checkedName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 100 || /[\u0000-\u001f\u007f]/.test(trimmed)) throw commandRefusal(400, localized('refusals.connections.invalidName'), 'name');
  return trimmed;
}

export interface ConnectionListing extends IdentityConnection {
  domains: { id: string; domain: string }[];
}

export async function listConnections(db: Queryable, orgId: string): Promise<ConnectionListing[]> {
  const rows = await db.select().from(identityConnections).where(eq(identityConnections.orgId, orgId)).orderBy(asc(identityConnections.createdAt));
  if (rows.length === 0) return [];
  const tied = await db
    .select({ id: orgDomains.id, domain: orgDomains.domain, connectionId: orgDomains.connectionId })
    .from(orgDomains)
    .where(and(eq(orgDomains.orgId, orgId), isNotNull(orgDomains.connectionId)))
    .orderBy(asc(orgDomains.domain));
  return rows.map((row) => ({ ...row, domains: tied.filter((domain) => domain.connectionId === row.id).map(({ id, domain }) => ({ id, domain })) }));
}

export async function connectionOfOrg(db: Queryable, orgId: string, connectionId: string): Promise<IdentityConnection> {
  const [row] = isUuid(connectionId)
    ? await db
        .select()
        .from(identityConnections)
        .where(and(eq(identityConnections.orgId, orgId), eq(identityConnections.id, connectionId)))
        .limit(1)
    : [];
  if (!row) throw commandRefusal(404, localized('refusals.connections.notFound'), 'not_found');
  return row;
}

export async function findConnection(db: Queryable, connectionId: string): Promise<IdentityConnection | undefined> {
  if (!isUuid(connectionId)) return undefined;
  const [row] = await db.select().from(identityConnections).where(eq(identityConnections.id, connectionId)).limit(1);
  return row;
}

const about = (connection: Pick<IdentityConnection, 'id' | 'name'>) => ({ subject: { type: 'identity_connection', id: connection.id, label: connection.name } });

/** The domains to tie: verified domains of this organization (ids from the form), each tied to at most one connection. */
async function tieDomains(tx: Queryable, orgId: string, connectionId: string, domainIds: readonly string[]): Promise<string[]> {
  const ids = [...new Set(domainIds)].filter(isUuid);
  if (ids.length !== new Set(domainIds).size) throw commandRefusal(400, localized('refusals.connections.domainNotVerified'), 'domains');
  // Untie what is no longer chosen, then tie the chosen ones: only verified domains of this organization, and not one
  // another connection holds (the check and the update are one statement each, in the caller's transaction).
  await tx
    .update(orgDomains)
    .set({ connectionId: null })
    .where(and(eq(orgDomains.orgId, orgId), eq(orgDomains.connectionId, connectionId), ids.length > 0 ? notInArray(orgDomains.id, ids) : sql`true`));
  if (ids.length === 0) return [];
  const tied = await tx
    .update(orgDomains)
    .set({ connectionId })
    .where(
      and(
        eq(orgDomains.orgId, orgId),
        inArray(orgDomains.id, ids),
        isNotNull(orgDomains.verifiedAt),
        sql`(${orgDomains.connectionId} is null or ${orgDomains.connectionId} = ${connectionId})`,
      ),
    )
    .returning({ domain: orgDomains.domain });
  if (tied.length !== ids.length) throw commandRefusal(400, localized('refusals.connections.domainNotVerified'), 'domains');
  return tied.map((row) => row.domain).sort();
}

/** One new connection at a time per organization: refused past the limit, or when another has the name. */
async function refuseUnlessRoomFor(ctx: Context, name: string): Promise<void> {
  await ctx.tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`portico:identity-connections:${ctx.orgId}`}))`);
  const existing = await ctx.tx.select({ name: identityConnections.name }).from(identityConnections).where(eq(identityConnections.orgId, ctx.orgId));
  if (existing.length >= MAX_CONNECTIONS_PER_ORG) throw commandRefusal(409, localized('refusals.connections.tooMany', { max: MAX_CONNECTIONS_PER_ORG }), 'name');
  if (existing.some((row) => row.name.toLowerCase() === name.toLowerCase())) throw commandRefusal(409, localized('refusals.connections.nameTaken', { name }), 'name');
}

/** Makes an OpenID Connect connection (the issuer was probed before the transaction); its secret is sealed at rest. */
/**
 * `id`: the connection's id chosen beforehand (a UUID), so that its redirect URI (connectionCallbackUrl) can be
 * registered at the identity provider before the connection exists; a new one otherwise.
 */
export async function createOidcConnection(ctx: Context, deps: Pick<ConnectionDeps, 'atRestKey'>, input: OidcConnectionFields & { domainIds: readonly string[]; id?: string }, probe: IssuerProbe): Promise<IdentityConnection> {
  const name = checkedName(input.name);
  // No door takes the id from a person (only code that registers the redirect URI first): a wrong one is a bug.
  if (input.id !== undefined && !isUuid(input.id)) throw new Error('A connection id chosen beforehand must be a UUID.');
  const clientId = input.clientId.trim();
  if (!clientId || clientId.length > 300) throw commandRefusal(400, localized('refusals.connections.invalidClientId'), 'clientId');
  if (!input.clientSecret || input.clientSecret.length > 1000) throw commandRefusal(400, localized('refusals.connections.clientSecretRequired'), 'clientSecret');
  const mapping = checkedMapping(input);
  await refuseUnlessRoomFor(ctx, name);
  const [created] = await ctx.tx
    .insert(identityConnections)
    .values({
      ...(input.id ? { id: input.id } : {}),
      orgId: ctx.orgId,
      kind: 'oidc',
      name,
      // Off until an owner has tested it and turns it on: a new connection sends nobody to an untried provider.
      enabled: false,
      defaultRole: input.defaultRole,
      oidcIssuer: probe.issuer,
      oidcClientId: clientId,
      oidcClientSecretSealed: await encryptAtRest(input.clientSecret, deps.atRestKey),
      ...mapping,
    })
    .returning();
  const domains = await tieDomains(ctx.tx, ctx.orgId, created!.id, input.domainIds);
  await ctx.audit({ action: 'identity.connection_created', ...about(created!), details: { kind: 'oidc', issuer: probe.issuer, clientId, defaultRole: input.defaultRole, domains } });
  return created!;
}

export interface SamlConnectionFields {
  name: string;
  entityId: string;
  ssoUrl: string;
  certificates: string;
  defaultRole: 'member' | 'admin';
  emailClaim: string;
  nameClaim: string;
  groupsClaim: string;
}

/**
 * A SAML single sign-on URL: https (http only where the installation allows loopback), no credentials, no fragment. A
 * query is kept (Google Workspace's carries the IdP's id): the AuthnRequest's parameters are added to it.
 */
export function normalizeSsoUrl(raw: string, allowHttp = false): string | undefined {
  const typed = raw.trim();
  let url: URL;
  try {
    url = new URL(typed);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) return undefined;
  if (url.hash || url.username || url.password || typed.length > 500) return undefined;
  return typed;
}

/** The audit keeps where metadata came from, never its query: some IdPs put an access key there. */
function withoutQuery(url: string): string {
  const parsed = new URL(url);
  parsed.search = '';
  parsed.hash = '';
  return parsed.href;
}

/**
 * Makes a SAML 2.0 connection: the identity provider's entity ID, its single sign-on URL and signing certificates,
 * as typed or read from its metadata (lib/identity/saml-metadata.ts). A value typed wins over the metadata's, so an
 * admin can correct one; every value, typed or read, passes the same checks, and a refusal about a value the
 * metadata gave stands next to the metadata's field.
 */
export async function createSamlConnection(
  ctx: Context,
  input: SamlConnectionFields & { domainIds: readonly string[] },
  options: { allowHttp: boolean; metadata?: IdpMetadata & { field: string; source: 'url' | 'xml'; url?: string } },
): Promise<IdentityConnection> {
  const name = checkedName(input.name);
  const { metadata } = options;
  const typed = { entityId: input.entityId.trim(), ssoUrl: input.ssoUrl.trim(), certificates: input.certificates.trim() };
  const fieldOf = (key: keyof typeof typed) => (typed[key] || !metadata ? key : metadata.field);
  const entityId = typed.entityId || metadata?.entityId || '';
  const ssoUrl = normalizeSsoUrl(typed.ssoUrl || metadata?.ssoUrl || '', options.allowHttp);
  if (!entityId || entityId.length > 500 || /[\s\u0000-\u001f]/.test(entityId)) throw commandRefusal(400, localized('refusals.connections.invalidSaml'), fieldOf('entityId'));
  if (!ssoUrl) throw commandRefusal(400, localized('refusals.connections.invalidSaml'), fieldOf('ssoUrl'));
  const certificates = typed.certificates ? parseCertificates(typed.certificates) : metadata?.certificates;
  if (!certificates) throw commandRefusal(400, localized('refusals.connections.invalidCertificate'), 'certificates');
  const mapping = checkedMapping(input);
  await refuseUnlessRoomFor(ctx, name);
  const [created] = await ctx.tx
    .insert(identityConnections)
    .values({ orgId: ctx.orgId, kind: 'saml', name, enabled: false, defaultRole: input.defaultRole, samlIdpEntityId: entityId, samlSsoUrl: ssoUrl, samlCertificates: certificates.join('\n'), ...mapping })
    .returning();
  const domains = await tieDomains(ctx.tx, ctx.orgId, created!.id, input.domainIds);
  await ctx.audit({ action: 'identity.connection_created', ...about(created!), details: { kind: 'saml', entityId, ssoUrl, defaultRole: input.defaultRole, domains, ...(metadata ? { metadata: metadata.source, ...(metadata.url ? { metadataUrl: withoutQuery(metadata.url) } : {}) } : {}) } });
  return created!;
}

export interface ConnectionChange {
  name: string;
  defaultRole: 'member' | 'admin';
  emailClaim: string;
  nameClaim: string;
  groupsClaim: string;
  domainIds: readonly string[];
  /** Group → team name (teams of this organization), one per line in the console. */
  groupTeams: Record<string, string>;
  /** OpenID Connect only: a new client secret (empty: keep), a new client id. */
  clientId?: string;
  clientSecret?: string;
  /** SAML only: the single sign-on URL, and the signing certificates (a rolled key; empty: keep). */
  ssoUrl?: string;
  certificates?: string;
}

/** Changes a connection's name, role, mapping, domains and (OIDC) client; the issuer stays (a new one is a new connection). */
export async function updateConnection(ctx: Context, deps: Pick<ConnectionDeps, 'atRestKey'>, connectionId: string, change: ConnectionChange, options: { allowHttp?: boolean } = {}): Promise<IdentityConnection> {
  const connection = await connectionOfOrg(ctx.tx, ctx.orgId, connectionId);
  const name = checkedName(change.name);
  const mapping = checkedMapping(change);
  const orgTeams = await ctx.tx.select({ id: teams.id, name: teams.name }).from(teams).where(eq(teams.orgId, ctx.orgId));
  const mapped = new Map<string, string>();
  for (const [group, teamName] of Object.entries(change.groupTeams)) {
    const team = orgTeams.find((row) => row.name.toLowerCase() === teamName.trim().toLowerCase());
    if (!team || !group.trim() || group.length > 200) throw commandRefusal(400, localized('refusals.connections.unknownTeam', { team: teamName.slice(0, 100) }), 'groupTeams');
    mapped.set(group.trim(), team.id);
  }
  // Own properties only, whatever the group is called ("__proto__" included).
  const groupTeams: Record<string, string> = Object.fromEntries(mapped);
  const clientId = change.clientId?.trim();
  if (connection.kind === 'oidc' && clientId !== undefined && (!clientId || clientId.length > 300)) throw commandRefusal(400, localized('refusals.connections.invalidClientId'), 'clientId');
  if (change.clientSecret && change.clientSecret.length > 1000) throw commandRefusal(400, localized('refusals.connections.clientSecretRequired'), 'clientSecret');
  const ssoUrl = connection.kind === 'saml' && change.ssoUrl !== undefined ? normalizeSsoUrl(change.ssoUrl, options.allowHttp) : undefined;
  if (connection.kind === 'saml' && change.ssoUrl !== undefined && !ssoUrl) throw commandRefusal(400, localized('refusals.connections.invalidSaml'), 'ssoUrl');
  let certificates: string | undefined;
  if (connection.kind === 'saml' && change.certificates?.trim()) {
    const parsed = parseCertificates(change.certificates);
    if (!parsed) throw commandRefusal(400, localized('refusals.connections.invalidCertificate'), 'certificates');
    certificates = parsed.join('\n');
  }
  const clash = await ctx.tx
    .select({ id: identityConnections.id })
    .from(identityConnections)
    .where(and(eq(identityConnections.orgId, ctx.orgId), sql`lower(${identityConnections.name}) = lower(${name})`, sql`${identityConnections.id} <> ${connection.id}`))
    .limit(1);
  if (clash.length > 0) throw commandRefusal(409, localized('refusals.connections.nameTaken', { name }), 'name');
  const [updated] = await ctx.tx
    .update(identityConnections)
    .set({
      name,
      defaultRole: change.defaultRole,
      ...mapping,
      groupTeams,
      ...(connection.kind === 'oidc' && clientId ? { oidcClientId: clientId } : {}),
      ...(connection.kind === 'oidc' && change.clientSecret ? { oidcClientSecretSealed: await encryptAtRest(change.clientSecret, deps.atRestKey) } : {}),
      ...(ssoUrl ? { samlSsoUrl: ssoUrl } : {}),
      ...(certificates ? { samlCertificates: certificates } : {}),
      updatedAt: sql`now()`,
    })
    .where(eq(identityConnections.id, connection.id))
    .returning();
  const domains = await tieDomains(ctx.tx, ctx.orgId, connection.id, change.domainIds);
  await ctx.audit({
    action: 'identity.connection_updated',
    ...about(updated!),
    details: { defaultRole: change.defaultRole, domains, groups: Object.keys(groupTeams).length, clientSecretReplaced: Boolean(change.clientSecret), clientId: updated!.oidcClientId, ssoUrl: updated!.samlSsoUrl, certificatesReplaced: Boolean(certificates) },
  });
  return updated!;
}

export async function setConnectionEnabled(ctx: Context, connectionId: string, enabled: boolean): Promise<IdentityConnection> {
  const connection = await connectionOfOrg(ctx.tx, ctx.orgId, connectionId);
  const [updated] = await ctx.tx.update(identityConnections).set({ enabled, updatedAt: sql`now()` }).where(eq(identityConnections.id, connection.id)).returning();
  await ctx.audit({ action: enabled ? 'identity.connection_enabled' : 'identity.connection_disabled', ...about(updated!) });
  return updated!;
}

/**
 * Whether people at the connection's domains must sign in through it (lib/identity/sso-required.ts): the password form
 * and password reset then refuse them, the organization's owners excepted.
 */
export async function setConnectionRequireSso(ctx: Context, connectionId: string, required: boolean): Promise<IdentityConnection> {
  const connection = await connectionOfOrg(ctx.tx, ctx.orgId, connectionId);
  const [updated] = await ctx.tx.update(identityConnections).set({ requireSso: required, updatedAt: sql`now()` }).where(eq(identityConnections.id, connection.id)).returning();
  await ctx.audit({ action: 'identity.connection_updated', ...about(updated!), details: { requireSso: required } });
  return updated!;
}

/**
 * An OpenID Connect connection made before each had its own redirect URI (migration 0050) moves to it: its identity
 * provider's admin registered connectionCallbackUrl, and from now on its sign-ins go out with it and the shared
 * callback takes none of its responses.
 */
export async function useOwnCallback(ctx: Context, connectionId: string): Promise<IdentityConnection> {
  const connection = await connectionOfOrg(ctx.tx, ctx.orgId, connectionId);
  const [updated] = await ctx.tx.update(identityConnections).set({ legacyCallbackUntil: null, updatedAt: sql`now()` }).where(eq(identityConnections.id, connection.id)).returning();
  await ctx.audit({ action: 'identity.connection_updated', ...about(updated!), details: { redirectUri: 'own' } });
  return updated!;
}

/** Deletes a connection: its domains are untied and its people keep their accounts (they sign in some other way, or not at all). */
export async function deleteConnection(ctx: Context, connectionId: string): Promise<IdentityConnection> {
  const connection = await connectionOfOrg(ctx.tx, ctx.orgId, connectionId);
  await ctx.tx.delete(identityConnections).where(eq(identityConnections.id, connection.id));
  await ctx.audit({ action: 'identity.connection_deleted', ...about(connection), details: { kind: connection.kind } });
  return connection;
}

/** A domain (joined with its connection) that signs people in: verified, tied to a connection that is on. */
export const signsIn = and(isNotNull(orgDomains.verifiedAt), eq(identityConnections.enabled, true));

/** The domain part of an address, normalized, or undefined. */
export function domainOfEmail(email: string): string | undefined {
  const at = email.lastIndexOf('@');
  return at > 0 ? normalizeDomain(email.slice(at + 1)) : undefined;
}

/**
 * Home realm discovery: the enabled connection that signs in this address — its domain verified and tied to the
 * connection — or undefined (the person signs in with Portico). `orgId`: only that organization's connections (an
 * app's sign-in card); none: any organization's (the console and the central, which belong to no organization).
 */
export async function connectionForEmail(db: Queryable, email: string, scope: { orgId?: string | null }): Promise<IdentityConnection | undefined> {
  const domain = domainOfEmail(email);
  if (!domain) return undefined;
  const [row] = await db
    .select({ connection: identityConnections })
    .from(orgDomains)
    .innerJoin(identityConnections, eq(identityConnections.id, orgDomains.connectionId))
    .where(and(signsIn, eq(orgDomains.domain, domain), scope.orgId ? eq(orgDomains.orgId, scope.orgId) : undefined))
    .limit(1);
  return row?.connection;
}

/** True when the organization signs some people in through a connection: its sign-in cards ask for the address first. */
export async function hasEnabledConnection(db: Queryable, orgId: string | null | undefined): Promise<boolean> {
  const [row] = await db
    .select({ id: orgDomains.id })
    .from(orgDomains)
    .innerJoin(identityConnections, eq(identityConnections.id, orgDomains.connectionId))
    .where(and(signsIn, orgId ? eq(orgDomains.orgId, orgId) : undefined))
    .limit(1);
  return row !== undefined;
}

/** The domains a connection signs people in for (verified, tied to it). */
export async function domainsOfConnection(db: Queryable, connectionId: string): Promise<string[]> {
  const rows = await db
    .select({ domain: orgDomains.domain })
    .from(orgDomains)
    .where(and(eq(orgDomains.connectionId, connectionId), isNotNull(orgDomains.verifiedAt)));
  return rows.map((row) => row.domain);
}
