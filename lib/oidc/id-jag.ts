// Enterprise-managed authorization: Identity Assertion JWT Authorization Grants (ID-JAG,
// draft-ietf-oauth-identity-assertion-authz-grant-04, profiled by MCP's enterprise-managed authorization extension),
// in both roles.
//
// Issuing (Portico is the company's identity provider, §4.3): an app's own confidential client exchanges a person's
// Portico ID token, issued to that very client, for an ID-JAG to an outside MCP server its organization connected
// (remote_mcp_servers). RFC 8693 token exchange with requested_token_type=…:id-jag; the answer's `access_token` is
// the ID-JAG (`token_type` N_A, §4.3.4), signed with Portico's key, five minutes, minimal claims.
//
// Receiving (Portico is the authorization server of an organization's apps, §4.4): a client presents an ID-JAG with
// the RFC 7523 jwt-bearer grant. The issuer must be one the app's organization trusts (trusted_assertion_issuers);
// the signature, `typ`, `iss`, `aud` (Portico's issuer, one value), `client_id` (the presenting client), `resource`
// (the app), `exp` and `iat` are checked, and each `jti` is used once across instances (MCP extension §7.4.2). The
// access token is like every other of the app's: audience the app's identity, scope the ID-JAG's scope ∩ what the
// person holds there now, ten minutes, no refresh token (§4.4.3: the client asks its identity provider again).
import { createHash, randomUUID } from 'node:crypto';
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import Provider, { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, errors as joseErrors, importJWK, jwtVerify, SignJWT, type JSONWebKeySet, type JWK, type JWTPayload } from 'jose';
import { KEYS_TTL_MS, verifyWithKeys } from '../security/remote-keys';
import type { Database, Queryable } from '../db/client';
import { assertionUses, clientAppLinks, externalIdentities, identityConnections, memberships, orgDomains, remoteMcpServers, trustedAssertionIssuers, users } from '../db/schema';
import { findAccountInOrganization } from '../organizations/memberships';
import { effectivePermissionsOfPerson } from '../organizations/effective-permissions';
import { appResource, findAppById, findAppByResource, type App } from '../clients/apps';
import { recordAuditEvent } from '../audit/events';
import { discover, identityProviderFetch } from '../identity/connections';
import type { OutboundPolicy } from '../http/outbound';
import { clientPolicyOf } from './client-policy';
import { ID_JAG_TOKEN_TYPE, noteExchangedClaims } from './agent-token-exchange';

export { ID_JAG_TOKEN_TYPE };
import { appTokenResourceServer, type PorticoClient } from './resource-servers';
import { appResourceScopes, resourceTokenScope } from './resource-scope';
import { sortScopes } from '../clients/permission-catalog';
import { normalizeEmail } from '../util/email';

export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
/** §7.2: what an authorization server that accepts ID-JAGs lists in `authorization_grant_profiles_supported`. */
export const ID_JAG_GRANT_PROFILE = 'urn:ietf:params:oauth:grant-profile:id-jag';
/** §3: the JWT `typ` of an ID-JAG (RFC 8725 §3.11 explicit typing). */
export const ID_JAG_TYP = 'oauth-id-jag+jwt';
/** The lifetime of the ID-JAGs Portico issues: short, as the MCP extension asks (§7.4.2). */
export const ID_JAG_TTL_SECONDS = 300;
/** The longest lifetime (exp − iat) of an ID-JAG Portico accepts: a long-lived grant is refused as a whole. */
export const MAX_ACCEPTED_ID_JAG_LIFETIME_SECONDS = 3600;
/** Signature algorithms accepted from an identity provider: asymmetric only, never `none` (MCP extension §7.4.1). */
const ACCEPTED_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];
const MAX_ASSERTION_LENGTH = 16 * 1024;
const CLOCK_TOLERANCE_SECONDS = 30;
/** How long past its `exp` a used assertion's record is kept: more than the tolerance, for instances' clock drift. */
const USE_RECORD_MARGIN_SECONDS = 300;

export interface IdJagDeps {
  issuer: string;
  db: () => Database;
  /** Portico's private signing keys (the ID-JAGs it issues) and public ones (the ID tokens it checks). */
  signingKeys: JWK[];
  publicJwks: JWK[];
  outbound: OutboundPolicy;
  /** The instant to check against; the real clock unless a test moves it. */
  now?: () => Date;
}

/**
 * RFC 6749 §5.2 invalid_grant that says why. oidc-provider's own InvalidGrant keeps its reason out of the answer (a
 * code or refresh token's owner needs none); a client presenting an assertion or an ID token does, and no reason here
 * names a trusted issuer or anything the client did not send (§9.4).
 */
class AssertionRefused extends errors.OIDCProviderError {
  constructor(description: string) {
    super(400, 'invalid_grant');
    Object.assign(this, { error_description: description });
  }
}

const split = (value: unknown): string[] => (typeof value === 'string' ? value.split(' ').filter(Boolean) : []);
const seconds = (deps: Pick<IdJagDeps, 'now'>) => Math.floor((deps.now?.() ?? new Date()).getTime() / 1000);

// ---------------------------------------------------------------------------------------------------------------
// Issuing (§4.3)
// ---------------------------------------------------------------------------------------------------------------

/**
 * The token exchange that answers an ID-JAG. The caller (the token-exchange grant, lib/oidc/agent-token-exchange.ts)
 * has seen requested_token_type=…:id-jag; oidc-provider has authenticated the client.
 */
export async function issueIdJag(ctx: KoaContextWithOIDC, deps: IdJagDeps): Promise<void> {
  const db = deps.db();
  const client = ctx.oidc.client as PorticoClient | undefined;
  const params = (ctx.oidc.params ?? {}) as Record<string, unknown>;
  // §9.1 and the MCP extension §7.7: confidential clients only, authenticated (oidc-provider did that).
  if (!client || clientPolicyOf(client)?.kind !== 'app' || (client as PorticoClient & { tokenEndpointAuthMethod?: string }).tokenEndpointAuthMethod === 'none' || !client.portico_org_id) {
    throw new errors.UnauthorizedClient('only an app’s own confidential client may ask for an ID-JAG');
  }
  if (client.portico_app_disabled) throw new AssertionRefused('the app is turned off');
  if (params.subject_token_type !== ID_TOKEN_TYPE) throw new errors.InvalidRequest(`subject_token_type must be ${ID_TOKEN_TYPE}`);
  if (typeof params.subject_token !== 'string' || params.subject_token.length === 0) throw new errors.InvalidRequest('subject_token is required');
  if (typeof params.audience !== 'string' || params.audience.length === 0) throw new errors.InvalidRequest('audience is required: the issuer of the MCP server’s authorization server');
  if (params.actor_token !== undefined) throw new errors.InvalidRequest('actor_token is not supported');

  // §4.3.3: the subject token is an ID token Portico issued to this very client, still valid.
  let idToken: JWTPayload;
  try {
    const { payload, protectedHeader } = await jwtVerify(params.subject_token, createLocalJWKSet({ keys: deps.publicJwks } as JSONWebKeySet), {
      issuer: deps.issuer,
      audience: client.clientId,
      algorithms: ['ES256', 'RS256'],
      requiredClaims: ['sub', 'exp', 'iat'],
      currentDate: deps.now?.(),
    });
    // Not an access token (typ at+jwt) nor a logout token (events): only an ID token names the person to this client.
    if ((protectedHeader.typ !== undefined && protectedHeader.typ.toUpperCase() !== 'JWT') || payload.events !== undefined) throw new Error('not an ID token');
    idToken = payload;
  } catch {
    throw new AssertionRefused('the subject token is not a valid ID token issued to this client');
  }
  const subject = String(idToken.sub);
  const orgId = client.portico_org_id;
  // A person removed from the organization (or disabled) gets nothing, whatever ID token they still hold.
  const account = await findAccountInOrganization(db, subject, orgId);
  if (!account?.member || account.user.disabledAt) throw new AssertionRefused('the person is not a member of the organization');

  // §9.3: Portico never issues an ID-JAG to itself (it would not accept one either).
  if (params.audience === deps.issuer) throw new errors.InvalidTarget('an ID-JAG is for another authorization server, not this one');
  const servers = await db.select().from(remoteMcpServers).where(and(eq(remoteMcpServers.orgId, orgId), eq(remoteMcpServers.authorizationServer, params.audience)));
  const resource = typeof params.resource === 'string' ? params.resource : undefined;
  const server = resource !== undefined ? servers.find((candidate) => candidate.resource === resource) : servers.length === 1 ? servers[0] : undefined;
  if (!server) {
    throw new errors.InvalidTarget(
      resource === undefined && servers.length > 1
        ? 'name the resource: the organization reaches several MCP servers at this authorization server'
        : 'the organization has no connection to this MCP server',
    );
  }

  // scope = requested ∩ allowed ∩ what the person holds (on the app that stands for the server, when there is one).
  let allowed = server.allowedScopes;
  if (server.permissionsAppId) {
    const held = new Set((await effectivePermissionsOfPerson(db, { orgId, appId: server.permissionsAppId, userId: subject })).map((permission) => permission.scope));
    allowed = allowed.filter((scope) => held.has(scope));
  }
  const requested = split(params.scope);
  const granted = sortScopes([...new Set(requested.length > 0 ? requested.filter((scope) => allowed.includes(scope)) : allowed)]);
  if (requested.length > 0 && granted.length === 0) throw new errors.InvalidScope('none of the requested scopes may be given for this MCP server', requested.join(' '));

  const issuedAt = seconds(deps);
  const jti = randomUUID();
  const key = deps.signingKeys.find((candidate) => candidate.alg === 'ES256');
  if (!key) throw new Error('no ES256 signing key');
  // §3.1 `tenant`: Portico serves many organizations under one issuer, so each ID-JAG says which one issued it (a
  // receiver that trusts Portico for one organization checks it; without it, another organization's owner could
  // speak for a person who belongs to both).
  const idJag = await new SignJWT({ client_id: server.remoteClientId, resource: server.resource, tenant: orgId, ...(granted.length > 0 ? { scope: granted.join(' ') } : {}) })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: ID_JAG_TYP })
    .setIssuer(deps.issuer)
    .setSubject(subject)
    .setAudience(server.authorizationServer)
    .setJti(jti)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ID_JAG_TTL_SECONDS)
    .sign(await importJWK(key, 'ES256'));
  await recordAuditEvent(db, {
    orgId,
    actor: { type: 'client', id: client.clientId, label: String(client.clientName ?? client.clientId) },
    action: 'agent.id_jag_issued',
    subject: { type: 'user', id: subject, label: account.user.email },
    appId: client.portico_app_id,
    clientId: client.clientId,
    details: { server: server.name, serverId: server.id, audience: server.authorizationServer, resource: server.resource, remoteClientId: server.remoteClientId, scope: granted.join(' '), jti, expiresIn: ID_JAG_TTL_SECONDS },
  });
  ctx.body = {
    access_token: idJag,
    issued_token_type: ID_JAG_TOKEN_TYPE,
    token_type: 'N_A',
    expires_in: ID_JAG_TTL_SECONDS,
    ...(granted.length > 0 ? { scope: granted.join(' ') } : {}),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Receiving (§4.4)
// ---------------------------------------------------------------------------------------------------------------

type TrustedIssuer = typeof trustedAssertionIssuers.$inferSelect & { connection: typeof identityConnections.$inferSelect | null };

async function trustedIssuerOf(db: Queryable, orgId: string, issuer: string, tenant: unknown): Promise<TrustedIssuer | undefined> {
  const rows = await db
    .select({ trust: trustedAssertionIssuers, connection: identityConnections })
    .from(trustedAssertionIssuers)
    .leftJoin(identityConnections, eq(identityConnections.id, trustedAssertionIssuers.connectionId))
    .where(and(eq(trustedAssertionIssuers.orgId, orgId), eq(trustedAssertionIssuers.issuer, issuer), eq(trustedAssertionIssuers.enabled, true)));
  // An entry naming a tenant trusts only that tenant's ID-JAGs; one naming none trusts the issuer as a whole.
  const row = rows.find((candidate) => candidate.trust.tenant !== null && candidate.trust.tenant === tenant) ?? rows.find((candidate) => candidate.trust.tenant === null);
  if (!row) return undefined;
  // Trust through a connection lasts while the connection is on (and still names this issuer).
  if (row.trust.connectionId && (!row.connection?.enabled || row.connection.oidcIssuer !== issuer)) return undefined;
  return { ...row.trust, connection: row.connection };
}

/** The JWKS URI of an issuer trusted without one (its discovery document says it), for five minutes. */
const jwksUriByIssuer = new Map<string, { uri: string; fetchedAt: number }>();

async function jwksUriOf(trust: TrustedIssuer, outbound: OutboundPolicy): Promise<string> {
  if (trust.jwksUri) return trust.jwksUri;
  const cached = jwksUriByIssuer.get(trust.issuer);
  if (cached && Date.now() - cached.fetchedAt < KEYS_TTL_MS) return cached.uri;
  const metadata = (await discover(outbound, { oidcIssuer: trust.issuer, oidcClientId: trust.connection?.oidcClientId ?? 'portico' }, undefined)).serverMetadata();
  if (!metadata.jwks_uri) throw new Error('the issuer publishes no jwks_uri');
  jwksUriByIssuer.set(trust.issuer, { uri: metadata.jwks_uri, fetchedAt: Date.now() });
  return metadata.jwks_uri;
}

/** Verifies with the issuer's keys (lib/oidc/remote-keys.ts: cached, fetched again for an unknown `kid`). */
async function verifyWithIssuerKeys(assertion: string, trust: TrustedIssuer, deps: IdJagDeps) {
  return verifyWithKeys(assertion, { uri: await jwksUriOf(trust, deps.outbound), outbound: deps.outbound }, {
    issuer: trust.issuer,
    audience: deps.issuer,
    typ: ID_JAG_TYP,
    algorithms: ACCEPTED_ALGORITHMS,
    requiredClaims: ['sub', 'exp', 'iat', 'jti', 'client_id'],
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    currentDate: deps.now?.(),
  });
}

/** Who the assertion's subject is here: the person linked through the connection, or the member its address names. */
async function personOf(db: Queryable, trust: TrustedIssuer, payload: JWTPayload): Promise<string | undefined> {
  if (trust.connectionId) {
    const [linked] = await db
      .select({ userId: externalIdentities.userId })
      .from(externalIdentities)
      .where(and(eq(externalIdentities.connectionId, trust.connectionId), eq(externalIdentities.issuer, trust.issuer), eq(externalIdentities.subject, String(payload.sub))))
      .limit(1);
    return linked?.userId;
  }
  // An issuer trusted by its keys alone: its `email` names a member, and only at a domain the organization verified
  // (an identity provider cannot speak for addresses the organization does not hold).
  // An address its issuer says is not verified names nobody (the nOAuth takeover; OIDC Core §5.1 email_verified).
  if (payload.email_verified === false) return undefined;
  const email = typeof payload.email === 'string' ? normalizeEmail(payload.email) : undefined;
  const domain = email?.split('@')[1];
  if (!email || !domain || email.split('@').length !== 2) return undefined;
  const [member] = await db
    .select({ userId: users.id })
    .from(users)
    .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.orgId, trust.orgId)))
    .innerJoin(orgDomains, and(eq(orgDomains.orgId, trust.orgId), eq(orgDomains.domain, domain), isNotNull(orgDomains.verifiedAt)))
    .where(sql`lower(${users.email}) = ${email}`)
    .limit(1);
  return member?.userId;
}

/** The app the grant is for: the `resource` of the request and of the ID-JAG (equal when both are given), else the client's own app. */
async function appOfGrant(db: Queryable, client: PorticoClient, requested: unknown, asserted: unknown): Promise<App> {
  const assertedResources = typeof asserted === 'string' ? [asserted] : Array.isArray(asserted) ? asserted.filter((value): value is string => typeof value === 'string') : [];
  if (asserted !== undefined && assertedResources.length !== 1) throw new AssertionRefused('the assertion must name one resource');
  if (requested !== undefined && typeof requested !== 'string') throw new errors.InvalidTarget('resource must be one URL');
  if (requested !== undefined && assertedResources[0] !== undefined && requested !== assertedResources[0]) throw new errors.InvalidTarget('the resource is not the one the assertion names');
  const resource = (requested as string | undefined) ?? assertedResources[0];
  // Neither names one (the draft makes `resource` optional): a client registered for one app means that app.
  const app = resource !== undefined ? await findAppByResource(db, resource) : client.portico_app_id ? await findAppById(db, client.portico_app_id) : undefined;
  if (resource !== undefined && (!app || appResource(app.publishOrigin) !== resource)) throw new errors.InvalidTarget('the resource is not an app of this Portico');
  if (!app) throw new errors.InvalidTarget('name the resource (the app’s MCP server)');
  if (app.disabledAt) throw new errors.InvalidTarget('the app is turned off');
  // A client registered for one app serves only that one.
  if (clientPolicyOf(client)?.servesOneApp && client.portico_app_id !== app.id) throw new errors.InvalidTarget('this client serves another app');
  return app;
}

export async function exchangeIdJag(provider: Provider, ctx: KoaContextWithOIDC, deps: IdJagDeps): Promise<void> {
  const db = deps.db();
  const client = ctx.oidc.client as PorticoClient | undefined;
  const params = (ctx.oidc.params ?? {}) as Record<string, unknown>;
  if (!client) throw new errors.InvalidClient('client authentication failed');
  const assertion = params.assertion;
  if (typeof assertion !== 'string' || assertion.length === 0) throw new errors.InvalidRequest('assertion is required');
  if (assertion.length > MAX_ASSERTION_LENGTH) throw new AssertionRefused('the assertion is too large');
  let unverified: JWTPayload;
  try {
    // RFC 7515 §4.1.9: the media type may carry its "application/" prefix.
    if (decodeProtectedHeader(assertion).typ?.toLowerCase().replace(/^application\//, '') !== ID_JAG_TYP) throw new AssertionRefused(`the assertion’s typ must be ${ID_JAG_TYP}`);
    unverified = decodeJwt(assertion);
  } catch (error) {
    throw error instanceof AssertionRefused ? error : new AssertionRefused('the assertion is not a JWT');
  }
  const app = await appOfGrant(db, client, params.resource, unverified.resource);
  // §9.3: an ID-JAG Portico issued itself is never exchanged here.
  if (unverified.iss === deps.issuer) throw new AssertionRefused('an ID-JAG this Portico issued is not accepted here');
  const trust = typeof unverified.iss === 'string' ? await trustedIssuerOf(db, app.orgId, unverified.iss, unverified.tenant) : undefined;
  // §9.4: the answer does not say which issuers are trusted.
  if (!trust) throw new AssertionRefused('the assertion’s issuer is not trusted for this app');

  let payload: JWTPayload;
  try {
    ({ payload } = await verifyWithIssuerKeys(assertion, trust, deps));
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) throw new AssertionRefused('the assertion has expired');
    if (error instanceof joseErrors.JWTClaimValidationFailed) throw new AssertionRefused(`the assertion’s ${error.claim} claim is not valid here`);
    if (error instanceof joseErrors.JOSEError) throw new AssertionRefused('the assertion’s signature does not verify with the issuer’s keys');
    throw new AssertionRefused('the issuer’s keys could not be read');
  }
  // §4.4.1: `aud` is this authorization server, alone (an array of exactly one).
  if (Array.isArray(payload.aud) && payload.aud.length !== 1) throw new AssertionRefused('the assertion must have exactly one audience');
  // The entry names a tenant: the verified assertion must be that tenant's (the unverified one chose the entry).
  if (trust.tenant !== null && payload.tenant !== trust.tenant) throw new AssertionRefused('the assertion’s tenant is not the one trusted');
  // §4.4.1 client continuity: the grant was issued for the client presenting it.
  if (payload.client_id !== client.clientId) throw new AssertionRefused('the assertion was issued for another client');
  if ((payload.exp as number) - (payload.iat as number) > MAX_ACCEPTED_ID_JAG_LIFETIME_SECONDS) throw new AssertionRefused('the assertion lives too long');
  if ((payload.iat as number) > seconds(deps) + CLOCK_TOLERANCE_SECONDS) throw new AssertionRefused('the assertion is issued in the future');

  const personId = await personOf(db, trust, payload);
  const account = personId ? await findAccountInOrganization(db, personId, app.orgId) : undefined;
  if (!account?.member || account.user.disabledAt) throw new AssertionRefused('the assertion’s subject is not a member of the app’s organization here');
  const [revoked] = await db
    .select({ at: clientAppLinks.revokedAt })
    .from(clientAppLinks)
    .where(and(eq(clientAppLinks.clientId, client.clientId), eq(clientAppLinks.appId, app.id), isNotNull(clientAppLinks.revokedAt)))
    .limit(1);
  if (revoked) throw new AssertionRefused('the client was revoked at this app');

  // Once only, across instances: the first insert of the issuer's `jti` wins, a replay finds it there.
  // Per organization: one organization's presentations never use up another's `jti`s.
  const key = createHash('sha256').update(`${app.orgId}\n${trust.issuer}\n${String(payload.jti)}`).digest('base64url');
  const [first] = await db
    .insert(assertionUses)
    // Kept well past the last moment any instance (clocks a little apart) would still accept it.
    .values({ key, expiresAt: new Date((payload.exp as number) * 1000 + USE_RECORD_MARGIN_SECONDS * 1000) })
    .onConflictDoNothing()
    .returning({ key: assertionUses.key });
  if (!first) throw new AssertionRefused('the assertion was already used');

  const catalog = await appResourceScopes(db, app.id);
  const held = new Set((await effectivePermissionsOfPerson(db, { orgId: app.orgId, appId: app.id, userId: account.user.id })).map((permission) => permission.scope));
  const asserted = split(payload.scope).filter((scope) => catalog.includes(scope));
  // RFC 7523 §2.1 lets the request narrow further with `scope`; it never widens what the assertion grants.
  const requested = params.scope === undefined ? asserted : split(params.scope).filter((scope) => asserted.includes(scope));
  const scope = requested.length === 0 ? [] : resourceTokenScope({ named: requested, allowedByGrant: catalog, effective: held });

  const token = new provider.AccessToken({ accountId: account.user.id, client, gty: 'jwt-bearer', scope: scope.join(' ') || undefined } as unknown as ConstructorParameters<Provider['AccessToken']>[0]);
  noteExchangedClaims(token, { org: app.orgId });
  token.resourceServer = appTokenResourceServer(provider, appResource(app.publishOrigin), { identity: app.identity, catalog });
  ctx.oidc.entity('AccessToken', token);
  const accessToken = await token.save();
  await recordAuditEvent(db, {
    orgId: app.orgId,
    actor: { type: 'client', id: client.clientId, label: String(client.clientName ?? client.clientId) },
    action: 'agent.id_jag_accepted',
    subject: { type: 'user', id: account.user.id, label: account.user.email },
    appId: app.id,
    clientId: client.clientId,
    details: { issuer: trust.issuer, via: trust.connectionId ? 'connection' : 'issuer_keys', connectionId: trust.connectionId, jti: String(payload.jti), scope: scope.join(' '), expiresIn: token.expiration },
  });
  ctx.body = { access_token: accessToken, token_type: 'Bearer', expires_in: token.expiration, ...(scope.length > 0 ? { scope: scope.join(' ') } : {}) };
}
