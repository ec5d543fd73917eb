// Signing in through an organization's enterprise connection (its company identity provider), on every surface: an
// app's sign-in card, the console, the central, and the admin's test of a connection.
//
// The state of a sign-in lives in PostgreSQL (federated_sign_ins), found by the SHA-256 of a random secret the
// browser holds in an HttpOnly, SameSite=Lax cookie, which no URL ever carries. A second random value, the `state`
// (OpenID Connect) or RelayState (SAML), only names the sign-in: the callback finds the sign-in by it and refuses it
// unless the cookie's secret is that sign-in's (login CSRF; a browser holding only the callback URL finishes nothing).
// The PKCE verifier and the `nonce` are derived from the cookie's secret with the at-rest key, so nothing that would
// let someone finish the sign-in is stored or sent. Where the sign-in continues is stored with it, never taken from
// the request; each stage is claimed by one conditional UPDATE or DELETE (single use).
//
// This file is the core both protocols share (the state, the refusals, who the person is, linking, where the
// sign-in continues); each protocol's own steps are beside it: oidc.ts, saml.ts; begin.ts starts either.
//
// Who the person is (resolveFederatedAccount): the account linked to the identity provider's subject (`iss` + `sub`,
// or the SAML IdP's entity ID + NameID) — never the address alone. A first sign-in creates the account (the address
// must be at one of the connection's verified domains) and the membership with the connection's default role. An
// existing Portico account with that address links only after it proves itself (its password, and its second
// factor if it has one): an identity provider cannot take over an account it did not create. The one exception is an
// account the organization's own directory provisioned (SCIM) for this organization and that nobody has used yet.
import { createHash, timingSafeEqual } from 'node:crypto';
import { and, eq, gt, inArray, lt, notInArray, sql } from 'drizzle-orm';
import { addMember, findMembershipRole } from '../../organizations/memberships';
import { runOrgOperation } from '../../organizations/org-operation';
import { findOrganizationById } from '../../organizations/organizations';
import { ACR_MFA, ACR_PASSWORD, beginSecondStep, hasSecondFactor, stepAfterPassword, type SecondStepContinuation } from '../../accounts/sign-in-second-step';
import { createUser, findUserByEmail, findUserById, normalizeEmail, type User } from '../../accounts/users';
import { recordAuditEvent } from '../../audit/events';
import { postgresErrorCode, type Database, type Queryable } from '../../db/client';
import { externalIdentities, federatedSignIns, passkeys, scimUsers, teamMembers, teams, users } from '../../db/schema';
import type { OutboundPolicy } from '../../http/outbound';
import { domainOfEmail, domainsOfConnection, findConnection, type IdentityConnection } from '../connections';
import type { LinkedBy } from '../links';

export const FEDERATION_COOKIE = 'portico_federation';
/** From the redirect to the identity provider to the end of the sign-in (a password to link included). */
export const FEDERATION_SECONDS = 10 * 60;
/** Passwords tried to link an existing account, per sign-in (the sign-in throttle counts them too). */
export const LINK_ATTEMPTS = 5;
/** The RFC 8176 methods an upstream `amr` may add to Portico's (anything else is not repeated to apps). */
const KNOWN_AMR = new Set(['face', 'fpt', 'geo', 'hwk', 'iris', 'kba', 'mca', 'mfa', 'otp', 'pin', 'pwd', 'rba', 'retina', 'sc', 'sms', 'swk', 'tel', 'user', 'vbm', 'wia']);

export interface FederationDeps {
  outbound: OutboundPolicy;
  atRestKey: Uint8Array;
  /** Portico's issuer: the callback and SAML endpoints are under it. */
  issuer: string;
}

/** Where a federated sign-in continues: a sign-in on one of the surfaces, or an admin testing a connection. */
export type FederationContinuation =
  | { surface: 'sign_in'; signIn: SecondStepContinuation; mfaRequested: boolean }
  | { surface: 'test'; orgId: string; orgSlug: string; userId: string };

/** What the identity provider said about the person, after every check (the ID token's signature, or the SAML signature). */
export interface FederatedAssertion {
  issuer: string;
  subject: string;
  email?: string;
  emailVerified: boolean;
  name?: string;
  /** undefined when the identity provider sent no groups (team memberships are then left as they are). */
  groups?: string[];
  /** The RFC 8176 methods the identity provider asserted (OIDC `amr`; SAML: from its AuthnContextClassRef). */
  amr: string[];
}

export type FederationRefusal =
  | 'expired'
  | 'state_mismatch'
  | 'idp_error'
  | 'invalid_response'
  | 'connection_disabled'
  | 'email_missing'
  | 'email_unverified'
  | 'email_outside_domains'
  | 'account_disabled'
  | 'deactivated'
  | 'not_a_member';

export const FEDERATION_REFUSALS: readonly FederationRefusal[] = ['expired', 'state_mismatch', 'idp_error', 'invalid_response', 'connection_disabled', 'email_missing', 'email_unverified', 'email_outside_domains', 'account_disabled', 'deactivated', 'not_a_member'];

export function isFederationRefusal(value: unknown): value is FederationRefusal {
  return typeof value === 'string' && (FEDERATION_REFUSALS as readonly string[]).includes(value);
}

export type FederationOutcome =
  /** Console or central: the route continues it (continueSignIn), which opens the session. */
  | { kind: 'signed_in'; user: User; continuation: SecondStepContinuation; amr: string[]; acr: string }
  /** An app's sign-in card: finished under the interaction's own path (its cookie is scoped there). */
  | { kind: 'finish_app'; uid: string }
  | { kind: 'second_factor' | 'enroll'; token: string; continuation: SecondStepContinuation }
  /** An account with this address exists: it proves itself before it is linked (the link page). */
  | { kind: 'link' }
  /** An admin's test: the mapped claims wait on the test page. */
  | { kind: 'test'; orgSlug: string; connectionId: string }
  | { kind: 'refused'; reason: FederationRefusal; continuation?: FederationContinuation };

/** How a sign-in's token is found at rest (OIDC callback, SAML ACS and finish, link, test): its SHA-256 only. */
export const federationTokenHash = (token: string) => createHash('sha256').update(token).digest('base64url');
const sha256 = federationTokenHash;

export function federationCookie(token: string, secure: boolean): string {
  return `${FEDERATION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${FEDERATION_SECONDS}${secure ? '; Secure' : ''}`;
}

export function clearedFederationCookie(secure: boolean): string {
  return `${FEDERATION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`;
}

export function federationTokenFromCookies(cookieHeader: string | null): string | undefined {
  const match = cookieHeader?.match(new RegExp(`(?:^|;\\s*)${FEDERATION_COOKIE}=([A-Za-z0-9_-]{20,100})`));
  return match?.[1];
}

export async function insertState(db: Queryable, values: { token: string; state: string }, connection: IdentityConnection, continuation: FederationContinuation, requestId: string | null) {
  await db.insert(federatedSignIns).values({
    tokenHash: sha256(values.token),
    stateHash: sha256(values.state),
    connectionId: connection.id,
    continuation: continuation as unknown as Record<string, unknown>,
    requestId,
    expiresAt: sql`now() + make_interval(secs => ${FEDERATION_SECONDS})`,
  });
}

export type StateRow = typeof federatedSignIns.$inferSelect;

export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * A sign-in through the connection refused after the identity provider answered: recorded in the organization's
 * audit log (what was refused and why, never the answer itself), then said to the person.
 */
export async function refused(db: Queryable, connection: Pick<IdentityConnection, 'id' | 'name' | 'orgId'>, reason: FederationRefusal, continuation: FederationContinuation | undefined, ip: string, email?: string): Promise<FederationOutcome> {
  await recordAuditEvent(db, {
    orgId: connection.orgId,
    actor: { type: 'person', label: email ?? null, ip },
    action: 'identity.sign_in_refused',
    subject: { type: 'identity_connection', id: connection.id, label: connection.name },
    details: { reason },
  });
  return { kind: 'refused', reason, continuation };
}

/** The connection's claim mapping applied: address, name, groups (strings only, bounded), and the `amr` asserted. */
export function mappedClaims(connection: Pick<IdentityConnection, 'emailClaim' | 'nameClaim' | 'groupsClaim'>, issuer: string, subject: string, claims: Record<string, unknown>): FederatedAssertion {
  const text = (value: unknown, max: number) => (typeof value === 'string' && value.length > 0 && value.length <= max ? value : undefined);
  const email = text(claims[connection.emailClaim], 320);
  const rawGroups = claims[connection.groupsClaim];
  const groups = Array.isArray(rawGroups) ? rawGroups.filter((group): group is string => typeof group === 'string' && group.length <= 200).slice(0, 500) : typeof rawGroups === 'string' ? [rawGroups] : undefined;
  const amr = Array.isArray(claims.amr) ? claims.amr.filter((method): method is string => typeof method === 'string' && KNOWN_AMR.has(method)) : [];
  return {
    issuer,
    subject,
    email: email && /^[^\s@]+@[^\s@]+$/.test(email) ? normalizeEmail(email) : undefined,
    emailVerified: claims.email_verified === true,
    name: text(claims[connection.nameClaim], 200)?.replace(/[\u0000-\u001f\u007f]/g, ''),
    groups,
    amr: [...new Set(amr)],
  };
}

/** What an admin's test shows: the claims as mapped, and what a real sign-in would do with them. */
export interface ConnectionTestResult {
  assertion: FederatedAssertion;
  emailAtConnectionDomain: boolean;
  teams: string[];
  account: 'linked' | 'new' | 'must_prove' | 'provisioned' | 'refused';
}

/**
 * After the identity provider's answer was verified: a test shows it; a sign-in finds or makes the account (or asks
 * an existing one to prove itself), then continues as after a password (the second step when Portico requires one).
 */
export async function signInWithAssertion(db: Database, row: StateRow, connection: IdentityConnection, assertion: FederatedAssertion, ip: string): Promise<FederationOutcome> {
  const continuation = row.continuation as unknown as FederationContinuation;
  if (continuation.surface === 'test') {
    const result = await testResult(db, connection, assertion);
    await db.update(federatedSignIns).set({ stage: 'done', assertion: result as unknown as Record<string, unknown> }).where(eq(federatedSignIns.tokenHash, row.tokenHash));
    return { kind: 'test', orgSlug: continuation.orgSlug, connectionId: connection.id };
  }
  const account = await resolveFederatedAccount(db, connection, assertion, ip);
  if (account.kind === 'refused') {
    await db.delete(federatedSignIns).where(eq(federatedSignIns.tokenHash, row.tokenHash));
    return refused(db, connection, account.reason, continuation, ip, assertion.email);
  }
  if (account.kind === 'link') {
    await db
      .update(federatedSignIns)
      .set({ stage: 'linking', userId: account.user.id, assertion: assertion as unknown as Record<string, unknown> })
      .where(eq(federatedSignIns.tokenHash, row.tokenHash));
    return { kind: 'link' };
  }
  return continueAfterAccount(db, row, connection, continuation, account.user, assertion);
}

async function testResult(db: Queryable, connection: IdentityConnection, assertion: FederatedAssertion): Promise<ConnectionTestResult> {
  const domains = await domainsOfConnection(db, connection.id);
  const emailDomain = assertion.email ? domainOfEmail(assertion.email) : undefined;
  const mappedTeamIds = (assertion.groups ?? []).map((group) => teamOfGroup(connection, group)).filter((id): id is string => Boolean(id));
  const teamNames = mappedTeamIds.length > 0 ? (await db.select({ name: teams.name }).from(teams).where(inArray(teams.id, mappedTeamIds))).map((team) => team.name) : [];
  const [linked] = await db
    .select({ id: externalIdentities.id })
    .from(externalIdentities)
    .where(and(eq(externalIdentities.connectionId, connection.id), eq(externalIdentities.issuer, assertion.issuer), eq(externalIdentities.subject, assertion.subject)))
    .limit(1);
  const atDomain = emailDomain !== undefined && domains.includes(emailDomain);
  // Whether an account has the address is said only for the connection's own domains: a test must not tell an
  // organization's admins which outside addresses have Portico accounts.
  const existing = assertion.email && atDomain ? await findUserByEmail(db, assertion.email) : undefined;
  const provisioned = existing ? await provisionedUnused(db, connection.orgId, existing) : false;
  return {
    assertion,
    emailAtConnectionDomain: atDomain,
    teams: teamNames.sort(),
    account: linked ? 'linked' : !atDomain ? 'refused' : !assertion.emailVerified ? (existing?.passwordHash ? 'must_prove' : 'refused') : !existing ? 'new' : provisioned ? 'provisioned' : 'must_prove',
  };
}

/** The result of the admin's test of a connection, for this browser and this admin. */
export async function connectionTestResultOf(db: Queryable, cookieToken: string | undefined, viewer: { userId: string; orgId: string }): Promise<(ConnectionTestResult & { connectionId: string }) | undefined> {
  if (!cookieToken) return undefined;
  const [row] = await db
    .select()
    .from(federatedSignIns)
    .where(and(eq(federatedSignIns.tokenHash, sha256(cookieToken)), eq(federatedSignIns.stage, 'done'), gt(federatedSignIns.expiresAt, sql`now()`)))
    .limit(1);
  const continuation = row?.continuation as FederationContinuation | undefined;
  if (!row || continuation?.surface !== 'test' || continuation.userId !== viewer.userId || continuation.orgId !== viewer.orgId) return undefined;
  return { ...(row.assertion as unknown as ConnectionTestResult), connectionId: row.connectionId };
}

/** True when this account was provisioned for the organization by its directory and nobody has used it yet. */
async function provisionedUnused(db: Queryable, orgId: string, user: User): Promise<boolean> {
  if (user.passwordHash) return false;
  const [row] = await db
    .select({
      provisioned: scimUsers.createdByProvisioning,
      passkey: sql<boolean>`exists (select 1 from ${passkeys} where ${passkeys.userId} = ${user.id})`,
      linked: sql<boolean>`exists (select 1 from ${externalIdentities} where ${externalIdentities.userId} = ${user.id})`,
    })
    .from(scimUsers)
    .where(and(eq(scimUsers.orgId, orgId), eq(scimUsers.userId, user.id), eq(scimUsers.active, true)))
    .limit(1);
  return row?.provisioned === true && !row.passkey && !row.linked;
}

type AccountResolution = { kind: 'account'; user: User } | { kind: 'link'; user: User } | { kind: 'refused'; reason: FederationRefusal };

/**
 * Finds or makes the account of a verified assertion, in one transaction: by the subject first; else a new account
 * for an address at one of the connection's verified domains; an existing account of that address must prove itself.
 * Two first sign-ins of one person at once: the unique constraints let one through, and the other finds its link.
 */
export async function resolveFederatedAccount(db: Database, connection: IdentityConnection, assertion: FederatedAssertion, ip: string, attempt = 0): Promise<AccountResolution> {
  try {
    return await db.transaction((tx) => resolveIn(tx, connection, assertion, ip));
  } catch (error) {
    if (attempt === 0 && postgresErrorCode(error) === '23505') return resolveFederatedAccount(db, connection, assertion, ip, 1);
    throw error;
  }
}

async function resolveIn(tx: Queryable, connection: IdentityConnection, assertion: FederatedAssertion, ip: string): Promise<AccountResolution> {
  // One resolution per subject at a time: a second sign-in of the same person waits, then finds the link the first
  // made (without the lock it could read "no link" before the first commits and "an account exists" after).
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`portico:federated:${connection.id}:${assertion.issuer}:${assertion.subject}`}))`);
  const [linked] = await tx
    .select({ user: users, identityId: externalIdentities.id })
    .from(externalIdentities)
    .innerJoin(users, eq(users.id, externalIdentities.userId))
    .where(and(eq(externalIdentities.connectionId, connection.id), eq(externalIdentities.issuer, assertion.issuer), eq(externalIdentities.subject, assertion.subject)))
    .limit(1);
  if (linked) {
    await tx.update(externalIdentities).set({ lastSignInAt: sql`now()` }).where(eq(externalIdentities.id, linked.identityId));
    return admitted(tx, connection, linked.user, assertion, ip);
  }
  if (!assertion.email) return { kind: 'refused', reason: 'email_missing' };
  const domain = domainOfEmail(assertion.email);
  // Only addresses the organization proved it controls: an identity provider cannot make accounts for anyone else's.
  if (!domain || !(await domainsOfConnection(tx, connection.id)).includes(domain)) return { kind: 'refused', reason: 'email_outside_domains' };
  // An address the identity provider does not vouch for makes no account and links none without a password: some
  // identity providers let people type their own address (the "nOAuth" takeover).
  if (!assertion.emailVerified) {
    const holder = await findUserByEmail(tx, assertion.email);
    return holder && !holder.disabledAt && holder.passwordHash ? { kind: 'link', user: holder } : { kind: 'refused', reason: 'email_unverified' };
  }
  const existing = await findUserByEmail(tx, assertion.email);
  if (!existing) {
    const user = await createUser(tx, { email: assertion.email, name: assertion.name ?? assertion.email.split('@')[0]!, passwordHash: null, emailVerified: assertion.emailVerified });
    await linkIdentity(tx, connection, user, assertion, 'sign_in');
    await recordAuditEvent(tx, {
      orgId: connection.orgId,
      actor: { type: 'person', id: user.id, label: user.email, ip },
      action: 'identity.account_created',
      subject: { type: 'person', id: user.id, label: user.email },
      details: { connection: connection.name, connectionId: connection.id, emailVerified: assertion.emailVerified },
    });
    return admitted(tx, connection, user, assertion, ip);
  }
  if (existing.disabledAt) return { kind: 'refused', reason: 'account_disabled' };
  if (await provisionedUnused(tx, connection.orgId, existing)) {
    await linkIdentity(tx, connection, existing, assertion, 'provisioned');
    await tx.update(scimUsers).set({ createdByProvisioning: false }).where(and(eq(scimUsers.orgId, connection.orgId), eq(scimUsers.userId, existing.id)));
    await recordLink(tx, connection, existing, ip, 'provisioned');
    return admitted(tx, connection, existing, assertion, ip);
  }
  return { kind: 'link', user: existing };
}

async function linkIdentity(tx: Queryable, connection: IdentityConnection, user: User, assertion: Pick<FederatedAssertion, 'issuer' | 'subject'>, linkedBy: LinkedBy): Promise<void> {
  await tx.insert(externalIdentities).values({ connectionId: connection.id, userId: user.id, issuer: assertion.issuer, subject: assertion.subject, linkedBy, lastSignInAt: sql`now()` });
}

async function recordLink(tx: Queryable, connection: IdentityConnection, user: User, ip: string, how: 'password' | 'provisioned'): Promise<void> {
  await recordAuditEvent(tx, {
    orgId: connection.orgId,
    actor: { type: 'person', id: user.id, label: user.email, ip },
    action: 'identity.account_linked',
    subject: { type: 'person', id: user.id, label: user.email },
    details: { connection: connection.name, connectionId: connection.id, how },
  });
}

/**
 * A linked account comes in: refused when disabled or deactivated by the directory; made a member with the
 * connection's default role when it is not one (the company's identity provider decides who belongs); its
 * teams follow the groups the identity provider sent.
 */
async function admitted(tx: Queryable, connection: IdentityConnection, user: User, assertion: Pick<FederatedAssertion, 'groups'>, ip: string): Promise<AccountResolution> {
  if (user.disabledAt) return { kind: 'refused', reason: 'account_disabled' };
  const [provisioned] = await tx
    .select({ active: scimUsers.active })
    .from(scimUsers)
    .where(and(eq(scimUsers.orgId, connection.orgId), eq(scimUsers.userId, user.id)))
    .limit(1);
  // The organization's directory deactivated the person: its word stands over the identity provider's sign-in.
  if (provisioned && !provisioned.active) return { kind: 'refused', reason: 'deactivated' };
  const org = (await findMembershipRole(tx, connection.orgId, user.id)) ? undefined : await findOrganizationById(tx, connection.orgId);
  if (org) {
    // An organization operation of the person's, through the connection (the kernel's door `federation`), in the
    // sign-in's own transaction: member.added in the organization's vocabulary, which its webhooks hear.
    await runOrgOperation(tx, { org, role: null, actor: { door: 'federation', person: user, ip } }, { audit: 'exactly_one', transaction: false }, async (operation) => {
      await addMember(operation.tx, { orgId: connection.orgId, userId: user.id, role: connection.defaultRole });
      await operation.audit({ action: 'member.added', subject: { type: 'person', id: user.id, label: user.email }, details: { role: connection.defaultRole, connection: connection.name, connectionId: connection.id } });
    });
  }
  await followGroups(tx, connection, user.id, assertion.groups);
  return { kind: 'account', user };
}

/** The team a group maps to: an own property of the mapping only (a group called "constructor" maps to nothing). */
function teamOfGroup(connection: Pick<IdentityConnection, 'groupTeams'>, group: string): string | undefined {
  const team = Object.hasOwn(connection.groupTeams, group) ? connection.groupTeams[group] : undefined;
  return typeof team === 'string' ? team : undefined;
}

/** The mapped teams the person's groups name are joined; the mapped teams they no longer name are left. */
async function followGroups(tx: Queryable, connection: IdentityConnection, userId: string, groups: string[] | undefined): Promise<void> {
  if (groups === undefined) return;
  const mapping = connection.groupTeams;
  const mappedTeams = [...new Set(Object.values(mapping))];
  if (mappedTeams.length === 0) return;
  const wanted = [...new Set(groups.map((group) => teamOfGroup(connection, group)).filter((id): id is string => Boolean(id)))];
  // Only teams of the connection's organization (a team deleted since the mapping was saved is skipped).
  const existing = (await tx.select({ id: teams.id }).from(teams).where(and(eq(teams.orgId, connection.orgId), inArray(teams.id, mappedTeams)))).map((team) => team.id);
  const join = wanted.filter((id) => existing.includes(id));
  if (join.length > 0) await tx.insert(teamMembers).values(join.map((teamId) => ({ teamId, userId }))).onConflictDoNothing();
  const leave = existing.filter((id) => !wanted.includes(id));
  if (leave.length > 0) await tx.delete(teamMembers).where(and(eq(teamMembers.userId, userId), inArray(teamMembers.teamId, leave), notInArray(teamMembers.teamId, join.length > 0 ? join : ['00000000-0000-0000-0000-000000000000'])));
}

/** RFC 8176 `amr` of a federated sign-in: `fed`, then what the identity provider asserted. */
export function federatedAmr(assertion: Pick<FederatedAssertion, 'amr'>): string[] {
  return ['fed', ...assertion.amr.filter((method) => method !== 'fed')];
}

/**
 * The account is known: the sign-in goes on as after a password. A Portico second factor is still asked when the
 * identity provider did not assert one (`mfa` in its `amr`) and the person has one or must have one (the
 * organization's policy, the app's `acr_values`).
 */
async function continueAfterAccount(
  db: Queryable,
  row: StateRow,
  connection: IdentityConnection,
  continuation: Extract<FederationContinuation, { surface: 'sign_in' }>,
  user: User,
  assertion: FederatedAssertion,
  /** The account is being linked: its own second factor is asked whatever the identity provider asserted. */
  linking = false,
): Promise<FederationOutcome> {
  const signIn = continuation.signIn;
  const orgId = signIn.events.orgId ?? null;
  // An app is for its organization's members (the connection made this person a member of its own organization).
  if (signIn.surface === 'app' && orgId && !(await findMembershipRole(db, orgId, user.id))) {
    await db.delete(federatedSignIns).where(eq(federatedSignIns.tokenHash, row.tokenHash));
    return { kind: 'refused', reason: 'not_a_member', continuation };
  }
  const amr = federatedAmr(assertion);
  // The identity provider's second factor stands for Portico's only for an account that has none of its own: one
  // that has a passkey or an authenticator here uses it (an IdP's word cannot stand in for a factor it never saw).
  const upstreamMfa = assertion.amr.includes('mfa') && !linking && !(await hasSecondFactor(db, user.id));
  const step = upstreamMfa ? 'none' : await stepAfterPassword(db, user.id, { orgId, mfaRequested: continuation.mfaRequested });
  const events = { ...signIn.events, via: connection.name };
  if (step !== 'none') {
    await db.delete(federatedSignIns).where(eq(federatedSignIns.tokenHash, row.tokenHash));
    const next: SecondStepContinuation = { ...signIn, events, firstFactor: amr, ...(step === 'enroll' ? { enroll: true } : {}) };
    return { kind: step, token: await beginSecondStep(db, { userId: user.id, continuation: next }), continuation: next };
  }
  const acr = upstreamMfa ? ACR_MFA : ACR_PASSWORD;
  if (signIn.surface === 'app') {
    const [done] = await db
      .update(federatedSignIns)
      .set({ stage: 'done', userId: user.id, assertion: { amr, acr }, continuation: { ...continuation, signIn: { ...signIn, events } } as unknown as Record<string, unknown> })
      .where(eq(federatedSignIns.tokenHash, row.tokenHash))
      .returning({ tokenHash: federatedSignIns.tokenHash });
    return done ? { kind: 'finish_app', uid: signIn.uid } : { kind: 'refused', reason: 'expired', continuation };
  }
  await db.delete(federatedSignIns).where(eq(federatedSignIns.tokenHash, row.tokenHash));
  return { kind: 'signed_in', user, continuation: { ...signIn, events }, amr, acr };
}

/**
 * An app's sign-in card finishes a federated sign-in under its own path (the interaction's cookie is scoped there):
 * the done row of this browser, for this interaction, used once.
 */
export async function takeFinishedAppSignIn(db: Queryable, cookieToken: string | undefined, uid: string): Promise<{ user: User; amr: string[]; acr: string; continuation: Extract<SecondStepContinuation, { surface: 'app' }> } | undefined> {
  if (!cookieToken) return undefined;
  const [row] = await db
    .delete(federatedSignIns)
    .where(and(eq(federatedSignIns.tokenHash, sha256(cookieToken)), eq(federatedSignIns.stage, 'done'), gt(federatedSignIns.expiresAt, sql`now()`)))
    .returning();
  const continuation = row?.continuation as FederationContinuation | undefined;
  if (!row || !row.userId || continuation?.surface !== 'sign_in' || continuation.signIn.surface !== 'app' || continuation.signIn.uid !== uid) return undefined;
  const user = await findUserById(db, row.userId);
  const { amr, acr } = row.assertion as { amr: string[]; acr: string };
  if (!user || user.disabledAt) return undefined;
  return { user, amr, acr, continuation: continuation.signIn };
}

/** The account waiting to prove itself in this browser's sign-in (for the link page), if the sign-in is still open. */
export async function pendingLink(db: Queryable, cookieToken: string | undefined): Promise<{ user: User; connection: IdentityConnection; continuation: FederationContinuation } | undefined> {
  if (!cookieToken) return undefined;
  const [row] = await db
    .select()
    .from(federatedSignIns)
    .where(and(eq(federatedSignIns.tokenHash, sha256(cookieToken)), eq(federatedSignIns.stage, 'linking'), gt(federatedSignIns.expiresAt, sql`now()`), lt(federatedSignIns.attempts, 1 + LINK_ATTEMPTS)))
    .limit(1);
  if (!row?.userId) return undefined;
  const [user, connection] = await Promise.all([findUserById(db, row.userId), findConnection(db, row.connectionId)]);
  if (!user || !connection) return undefined;
  return { user, connection, continuation: row.continuation as unknown as FederationContinuation };
}

/**
 * The account proved itself (its password, and its second factor when it has one): a link it had on this connection
 * to another subject (the identity provider re-created them, or the connection's NameID changed) gives way to this
 * one; then the person is admitted as through any linked sign-in.
 */
async function linkProvenAccount(tx: Queryable, connection: IdentityConnection, user: User, assertion: Pick<FederatedAssertion, 'issuer' | 'subject' | 'groups'>, ip: string): Promise<AccountResolution> {
  await tx.delete(externalIdentities).where(and(eq(externalIdentities.connectionId, connection.id), eq(externalIdentities.userId, user.id)));
  await linkIdentity(tx, connection, user, assertion, 'password');
  await recordLink(tx, connection, user, ip, 'password');
  return admitted(tx, connection, user, assertion, ip);
}

/**
 * The end of a sign-in whose link waited for the second step (linkAfterProof): the link is made and the person
 * admitted, in one transaction, or nothing is (a connection turned off meanwhile, a person deactivated by the
 * directory, an app of an organization they are not a member of).
 */
export async function completeFederatedLink(db: Database, user: User, continuation: SecondStepContinuation, ip: string): Promise<'linked' | FederationRefusal> {
  const pending = continuation.federatedLink;
  if (!pending) return 'linked';
  const connection = await findConnection(db, pending.connectionId);
  if (!connection || !connection.enabled) return 'connection_disabled';
  try {
    await db.transaction(async (tx) => {
      const admission = await linkProvenAccount(tx, connection, user, pending, ip);
      if (admission.kind === 'refused') throw new LinkRefused(admission.reason);
      const orgId = continuation.events.orgId ?? null;
      if (continuation.surface === 'app' && orgId && !(await findMembershipRole(tx, orgId, user.id))) throw new LinkRefused('not_a_member');
    });
  } catch (error) {
    if (!(error instanceof LinkRefused)) throw error;
    await refused(db, connection, error.reason, undefined, ip, user.email);
    return error.reason;
  }
  return 'linked';
}

class LinkRefused extends Error {
  constructor(readonly reason: FederationRefusal) {
    super(reason);
  }
}

/**
 * The existing account proved itself (the caller checked its password under the sign-in throttle): the identity
 * provider's subject is linked to it, and the sign-in goes on. `check` runs after this try was counted (five per
 * sign-in, counted in one conditional UPDATE so that parallel tries cannot pass the limit).
 */
export async function linkAfterProof(
  db: Database,
  input: { cookieToken: string | undefined; ip: string; check: (user: User, surface: SecondStepContinuation['surface']) => Promise<boolean> },
): Promise<FederationOutcome | { kind: 'wrong'; attemptsLeft: number }> {
  if (!input.cookieToken) return { kind: 'refused', reason: 'expired' };
  const [row] = await db
    .update(federatedSignIns)
    .set({ attempts: sql`${federatedSignIns.attempts} + 1` })
    .where(and(eq(federatedSignIns.tokenHash, sha256(input.cookieToken)), eq(federatedSignIns.stage, 'linking'), gt(federatedSignIns.expiresAt, sql`now()`), lt(federatedSignIns.attempts, 1 + LINK_ATTEMPTS)))
    .returning();
  if (!row?.userId) return { kind: 'refused', reason: 'expired' };
  const continuation = row.continuation as unknown as FederationContinuation;
  const [user, connection] = await Promise.all([findUserById(db, row.userId), findConnection(db, row.connectionId)]);
  if (!user || !connection || continuation.surface !== 'sign_in') return { kind: 'refused', reason: 'expired' };
  if (!connection.enabled) return { kind: 'refused', reason: 'connection_disabled', continuation };
  if (!(await input.check(user, continuation.signIn.surface))) return { kind: 'wrong', attemptsLeft: 1 + LINK_ATTEMPTS - row.attempts };
  const assertion = row.assertion as unknown as FederatedAssertion;
  // The account's whole sign-in comes before the link: with a second factor (or one to set up), the password alone
  // links nothing and joins nothing; the link waits in the second step's continuation (completeFederatedLink).
  const step = await stepAfterPassword(db, user.id, { orgId: continuation.signIn.events.orgId ?? null, mfaRequested: continuation.mfaRequested });
  if (step !== 'none') {
    const [claimed] = await db.delete(federatedSignIns).where(and(eq(federatedSignIns.tokenHash, row.tokenHash), eq(federatedSignIns.stage, 'linking'))).returning({ tokenHash: federatedSignIns.tokenHash });
    if (!claimed) return { kind: 'refused', reason: 'expired', continuation };
    const next: SecondStepContinuation = {
      ...continuation.signIn,
      events: { ...continuation.signIn.events, via: connection.name },
      firstFactor: federatedAmr(assertion),
      federatedLink: { connectionId: connection.id, issuer: assertion.issuer, subject: assertion.subject, ...(assertion.groups ? { groups: assertion.groups } : {}) },
      ...(step === 'enroll' ? { enroll: true } : {}),
    };
    return { kind: step, token: await beginSecondStep(db, { userId: user.id, continuation: next }), continuation: next };
  }
  let resolution: AccountResolution;
  try {
    resolution = await db.transaction(async (tx) => {
      // Used once: of two right passwords at once, one links.
      const [claimed] = await tx
        .update(federatedSignIns)
        .set({ stage: 'started', attempts: 1 + LINK_ATTEMPTS })
        .where(and(eq(federatedSignIns.tokenHash, row.tokenHash), eq(federatedSignIns.stage, 'linking')))
        .returning();
      if (!claimed) throw new LinkRefused('expired');
      // The person proved the account: a link it had on this connection to another subject (the identity provider
      // re-created them, or the connection's NameID changed) gives way to this one.
      const admission = await linkProvenAccount(tx, connection, user, assertion, input.ip);
      // Refused (a deactivated person): nothing of the link stays.
      if (admission.kind === 'refused') throw new LinkRefused(admission.reason);
      return admission;
    });
  } catch (error) {
    if (!(error instanceof LinkRefused)) throw error;
    await db.delete(federatedSignIns).where(eq(federatedSignIns.tokenHash, row.tokenHash));
    return error.reason === 'expired' ? { kind: 'refused', reason: 'expired', continuation } : refused(db, connection, error.reason, continuation, input.ip, user.email);
  }
  if (resolution.kind !== 'account') return { kind: 'refused', reason: 'expired', continuation };
  return continueAfterAccount(db, row, connection, continuation, user, assertion, true);
}
