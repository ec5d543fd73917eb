// SAML 2.0 enterprise connections, through @node-saml/node-saml (the maintained SAML library of passport-saml): Portico
// is the service provider, one per connection (entity ID `<issuer>/auth/federation/saml/<connection>`), sending an
// AuthnRequest by HTTP-Redirect and taking the Response at its assertion consumer service (HTTP-POST).
//
// What is required of a Response (SAML 2.0 Core, Profiles §4.1.4.2–3), beyond what the library checks (the signature
// of the assertion against the connection's certificates — a signed assertion is required, a signed response alone
// is not enough —, the audience, the time window, the Response's InResponseTo = this sign-in's AuthnRequest):
// - the assertion's ID was never seen before (saml_assertion_ids, kept until the assertion could no longer be
//   valid), recorded as soon as its signature holds, so that an assertion refused for any later reason is spent too;
// - the signed assertion's Issuer, and the Response's Issuer when it has one, are the connection's IdP entity ID
//   (node-saml 5 compares `idpIssuer` for logout messages only: one IdP installation may sign for several tenants
//   with one key);
// - every bearer SubjectConfirmationData inside the signed assertion names this sign-in's AuthnRequest
//   (InResponseTo, Profiles §4.1.4.2): the Response's own InResponseTo is outside the signature, so an unsolicited
//   (IdP-initiated) assertion wrapped in a Response naming someone's request is refused;
// - the subject confirmation's Recipient and the Response's Destination are this connection's ACS URL.
//
// The ACS is a cross-site POST: the browser sends no SameSite=Lax cookie with it. The Response is checked and kept
// with the sign-in found by its RelayState; the browser is then sent (a top-level GET, which carries the cookie) to
// the finish step, which continues only the sign-in that is this browser's (no login CSRF through a posted Response).
import { randomBytes } from 'node:crypto';
import { and, eq, gt, sql } from 'drizzle-orm';
import { SAML, ValidateInResponseTo, type Profile } from '@node-saml/node-saml';
import { DOMParser } from '@xmldom/xmldom';
import { postgresErrorCode, type Database, type Queryable } from '../../db/client';
import { federatedSignIns, samlAssertionIds } from '../../db/schema';
import { findConnection, type IdentityConnection } from '../connections';
import { parseCertificates } from '../saml-metadata';
import { federationTokenHash, mappedClaims, refused, signInWithAssertion, type FederatedAssertion, type FederationContinuation, type FederationDeps, type FederationOutcome } from './core';

/** Accepted clock difference with the identity provider (the library's default is none). */
const CLOCK_SKEW_MS = 30_000;
/** How long an assertion's ID is remembered when the assertion names no end of its validity. */
const REPLAY_WINDOW_MS = 60 * 60 * 1000;

export function samlEntityId(issuer: string, connectionId: string): string {
  return `${issuer}/auth/federation/saml/${connectionId}`;
}

export function samlAcsUrl(issuer: string, connectionId: string): string {
  return `${samlEntityId(issuer, connectionId)}/acs`;
}

function serviceProvider(deps: Pick<FederationDeps, 'issuer'>, connection: IdentityConnection, expectedRequestId?: string, requestId?: string): SAML {
  return new SAML({
    issuer: samlEntityId(deps.issuer, connection.id),
    callbackUrl: samlAcsUrl(deps.issuer, connection.id),
    entryPoint: connection.samlSsoUrl!,
    idpCert: parseCertificates(connection.samlCertificates ?? '') ?? [],
    idpIssuer: connection.samlIdpEntityId!,
    audience: samlEntityId(deps.issuer, connection.id),
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    identifierFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
    disableRequestedAuthnContext: true,
    signatureAlgorithm: 'sha256',
    // InResponseTo must be this sign-in's AuthnRequest: the "cache" is the one ID stored with the sign-in.
    validateInResponseTo: ValidateInResponseTo.always,
    ...(requestId ? { generateUniqueId: () => requestId } : {}),
    cacheProvider: {
      saveAsync: async (key, value) => ({ value, createdAt: Date.now() }),
      getAsync: async (key) => (expectedRequestId !== undefined && key === expectedRequestId ? new Date().toISOString() : null),
      removeAsync: async (key) => key,
    },
  });
}

/**
 * Where the browser goes to sign in (HTTP-Redirect binding), and the AuthnRequest's ID to expect back. `relayState`
 * names the sign-in (never the browser's cookie secret: a URL is no proof of the browser).
 */
export async function samlRedirectUrl(deps: FederationDeps, connection: IdentityConnection, relayState: string): Promise<{ location: string; requestId: string }> {
  // An NCName (SAML IDs are xs:ID): a letter first.
  const requestId = `_${randomBytes(20).toString('hex')}`;
  const location = await serviceProvider(deps, connection, undefined, requestId).getAuthorizeUrlAsync(relayState, undefined, {});
  return { location, requestId };
}

/** The service provider's metadata, for the identity provider's admin to import. */
export function samlMetadata(deps: Pick<FederationDeps, 'issuer'>, connection: IdentityConnection): string {
  return serviceProvider(deps, connection).generateServiceProviderMetadata(null, null);
}

type XmlText = string | { _?: string };
type Parsed = {
  Assertion?: {
    $?: Record<string, string>;
    Issuer?: XmlText[];
    Subject?: { SubjectConfirmation?: { $?: Record<string, string>; SubjectConfirmationData?: { $?: Record<string, string> }[] }[] }[];
    Conditions?: { $?: Record<string, string> }[];
    AuthnStatement?: { AuthnContext?: { AuthnContextClassRef?: XmlText[] }[] }[];
  };
};
const textOf = (value: XmlText | undefined) => (typeof value === 'string' ? value : value?._)?.trim();

/** The Response element's own Issuer (a direct child of the root, not one inside the assertion), when it has one. */
function responseIssuer(responseXml: string): string | undefined | null {
  const document = new DOMParser().parseFromString(responseXml, 'text/xml');
  const root = document.documentElement;
  if (!root || root.localName !== 'Response') return null;
  for (let child = root.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === 1 && (child as Element).localName === 'Issuer' && (child as Element).namespaceURI === 'urn:oasis:names:tc:SAML:2.0:assertion') return (child.textContent ?? '').trim();
  }
  return undefined;
}

/** RFC 8176 methods from the AuthnContextClassRef (SAML 2.0 Authentication Context classes): what can be said honestly. */
function amrOfContext(classRef: string | undefined): string[] {
  if (!classRef) return [];
  if (/:(Password|PasswordProtectedTransport)$/.test(classRef)) return ['pwd'];
  if (/:(MobileTwoFactorContract|MobileTwoFactorUnregistered|TimeSyncToken)$/.test(classRef)) return ['otp', 'mfa'];
  if (/:(X509|Smartcard|SmartcardPKI)$/.test(classRef)) return ['sc'];
  // Microsoft Entra ID's class for a sign-in that used several factors.
  if (classRef === 'http://schemas.microsoft.com/claims/multipleauthn') return ['mfa'];
  return [];
}

/**
 * The assertion consumer service: the Response is verified against the sign-in its RelayState names and kept there;
 * the finish step (this browser's cookie) continues it. Every refusal is 'invalid_response' or 'expired': what was
 * wrong is said to no one (a refused Response is recorded in the organization's audit log as such).
 */
export async function acceptSamlResponse(db: Queryable, deps: FederationDeps, input: { connectionId: string; samlResponse: string; relayState: string; ip: string }): Promise<'accepted' | 'expired' | 'invalid_response'> {
  if (input.samlResponse.length > 512 * 1024 || input.relayState.length > 100) return 'invalid_response';
  const connection = await findConnection(db, input.connectionId);
  if (!connection || connection.kind !== 'saml') return 'expired';
  const [row] = await db
    .select()
    .from(federatedSignIns)
    .where(and(eq(federatedSignIns.stateHash, federationTokenHash(input.relayState)), eq(federatedSignIns.connectionId, connection.id), eq(federatedSignIns.stage, 'started'), eq(federatedSignIns.attempts, 0), gt(federatedSignIns.expiresAt, sql`now()`)))
    .limit(1);
  if (!row?.requestId) return 'expired';
  // A connection that is off signs nobody in; an owner may still test it.
  if (!connection.enabled && (row.continuation as { surface?: string }).surface !== 'test') return 'expired';
  const invalid = async () => {
    await refused(db, connection, 'invalid_response', row.continuation as unknown as FederationContinuation, input.ip);
    return 'invalid_response' as const;
  };
  let profile: Profile | null;
  try {
    ({ profile } = await serviceProvider(deps, connection, row.requestId).validatePostResponseAsync({ SAMLResponse: input.samlResponse, RelayState: input.relayState }));
  } catch {
    return invalid();
  }
  if (!profile) return invalid();
  const parsed = (profile.getAssertion?.() ?? {}) as Parsed;
  const assertionId = parsed.Assertion?.$?.ID;
  if (!assertionId) return invalid();
  // An assertion is tried once, whatever follows: its ID (its signature holds) is remembered until the assertion
  // could no longer be valid anyway, before any other check can refuse it.
  const notOnOrAfter = Date.parse(parsed.Assertion?.Conditions?.[0]?.$?.NotOnOrAfter ?? '');
  const keepUntil = new Date((Number.isFinite(notOnOrAfter) ? notOnOrAfter : Date.now() + REPLAY_WINDOW_MS) + CLOCK_SKEW_MS);
  try {
    const [kept] = await db
      .insert(samlAssertionIds)
      .values({ connectionId: connection.id, assertionId: assertionId.slice(0, 300), expiresAt: sql`${keepUntil.toISOString()}::timestamptz` })
      .onConflictDoNothing()
      .returning({ id: samlAssertionIds.assertionId });
    if (!kept) return invalid();
  } catch (error) {
    if (postgresErrorCode(error) === '23505') return invalid();
    throw error;
  }
  // The subject must stay the same from one sign-in to the next: a transient NameID would make a new person each time.
  if (!profile.nameID || profile.nameIDFormat === 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient') return invalid();
  // Issued by this connection's identity provider: the signed assertion's Issuer, and the Response's when it has one.
  const responseXml = profile.getSamlResponseXml?.() ?? '';
  const outerIssuer = responseIssuer(responseXml);
  if (textOf(parsed.Assertion?.Issuer?.[0]) !== connection.samlIdpEntityId || outerIssuer === null || (outerIssuer !== undefined && outerIssuer !== connection.samlIdpEntityId)) return invalid();
  const acs = samlAcsUrl(deps.issuer, connection.id);
  const destination = /<(?:\w+:)?Response\b[^>]*\sDestination="([^"]*)"/.exec(responseXml)?.[1];
  if (destination !== undefined && destination !== acs) return invalid();
  // Every bearer confirmation of the signed assertion answers this sign-in's request, at this ACS.
  const confirmations = (parsed.Assertion?.Subject?.[0]?.SubjectConfirmation ?? []).map((confirmation) => confirmation.SubjectConfirmationData?.[0]?.$ ?? {});
  if (confirmations.length === 0 || !confirmations.every((data) => data.Recipient === acs && data.InResponseTo === row.requestId)) return invalid();
  const classRef = textOf(parsed.Assertion?.AuthnStatement?.[0]?.AuthnContext?.[0]?.AuthnContextClassRef?.[0]);
  const attributes = { ...((profile.attributes as Record<string, unknown> | undefined) ?? {}) };
  if (attributes[connection.emailClaim] === undefined && typeof profile.email === 'string') attributes[connection.emailClaim] = profile.email;
  const assertion: FederatedAssertion = {
    ...mappedClaims(connection, connection.samlIdpEntityId!, profile.nameID, attributes),
    // A SAML identity provider that signed the assertion vouches for the address it put in it.
    emailVerified: true,
    amr: amrOfContext(classRef),
  };
  const [claimed] = await db
    .update(federatedSignIns)
    .set({ stage: 'asserted', attempts: 1, assertion: assertion as unknown as Record<string, unknown> })
    .where(and(eq(federatedSignIns.tokenHash, row.tokenHash), eq(federatedSignIns.stage, 'started'), eq(federatedSignIns.attempts, 0)))
    .returning({ tokenHash: federatedSignIns.tokenHash });
  return claimed ? 'accepted' : 'expired';
}

/** The finish step (GET, this browser's cookie): the asserted sign-in of this browser continues, once. */
export async function finishSamlSignIn(db: Database, cookieToken: string | undefined, ip: string): Promise<FederationOutcome> {
  if (!cookieToken) return { kind: 'refused', reason: 'expired' };
  const [row] = await db
    .update(federatedSignIns)
    .set({ stage: 'started', attempts: 1 })
    .where(and(eq(federatedSignIns.tokenHash, federationTokenHash(cookieToken)), eq(federatedSignIns.stage, 'asserted'), gt(federatedSignIns.expiresAt, sql`now()`)))
    .returning();
  if (!row) return { kind: 'refused', reason: 'expired' };
  const connection = await findConnection(db, row.connectionId);
  const continuation = row.continuation as unknown as FederationContinuation;
  if (!connection || (!connection.enabled && continuation.surface !== 'test')) return { kind: 'refused', reason: 'connection_disabled', continuation };
  return signInWithAssertion(db, row, connection, row.assertion as unknown as FederatedAssertion, ip);
}
