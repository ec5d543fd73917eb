// SCIM 2.0 provisioning (RFC 7643 schemas, RFC 7644 protocol) for one organization: its directory (Entra ID, Okta,
// Google, …) creates, updates, deactivates and deletes the organization's people and groups here, with a bearer token
// the console shows once (its SHA-256 only is stored).
//
// Users are Portico accounts seen through the organization (scim_users: the userName and externalId the directory
// gave, whether it has them active). A User's address must be at one of the organization's verified domains: a
// directory cannot provision, or take into its organization, anybody else's people. Deactivating (active=false)
// or deleting a User ends the membership exactly like removing a member (removeMemberCommand in lib/organizations/member-commands.ts, run as an organization operation of the directory:
// grants, refresh tokens, teams, agents' use, back-channel logout to the apps); the account itself stays, as it
// may belong to other organizations. Groups are teams (scim_groups marks those the directory manages). Of what a
// directory sends, Portico keeps a User's userName, name (formatted, givenName, familyName), displayName, emails,
// active and externalId and a Group's displayName, members and externalId; every other attribute the schemas define
// (phone numbers, addresses, the enterprise extension, …) is accepted and ignored (attributes.ts).
import { and, asc, count, eq, isNotNull, sql, type SQL } from 'drizzle-orm';
import { addMember, findMembershipRole } from '../../organizations/memberships';
import { removeMemberCommand } from '../../organizations/member-commands';
import { refusalOf } from '../../refusals/refusal';
import { createUser, findUserByEmail, findUserById, normalizeEmail, type User } from '../../accounts/users';
import type { Queryable, Transaction } from '../../db/client';
import { identityConnections, memberships, orgDomains, scimUsers, users } from '../../db/schema';
import { isUuid } from '../../util/uuid';
import { domainOfEmail } from '../connections';
import { scimRefusal } from '../refusal-codes';
import { NAME_KEPT, USER_RESOURCE, nameValue, resourceBody } from './attributes';
import { operationTargets, patchOperations, refuseIdChange } from './patch';
import { type ScimContext, USER_SCHEMA, audit, bool, isObject, listResponse, operationOf, pagination, parseEqFilter, provisioning, text } from './resources';

type ScimUserRow = typeof scimUsers.$inferSelect & { email: string; name: string; givenName: string | null; familyName: string | null };

function userResource(ctx: ScimContext, row: ScimUserRow) {
  return {
    schemas: [USER_SCHEMA],
    id: row.userId,
    ...(row.externalId ? { externalId: row.externalId } : {}),
    userName: row.userName,
    // name.formatted and displayName are both the name the person is shown as (one value in Portico); the parts are
    // what the directory last gave.
    name: { formatted: row.name, ...(row.givenName ? { givenName: row.givenName } : {}), ...(row.familyName ? { familyName: row.familyName } : {}) },
    displayName: row.name,
    emails: [{ value: row.email, type: 'work', primary: true }],
    active: row.active,
    meta: { resourceType: 'User', created: row.createdAt.toISOString(), lastModified: row.updatedAt.toISOString(), location: `${ctx.base}/Users/${row.userId}`, version: `W/"${row.updatedAt.getTime()}"` },
  };
}

function scimUsersQuery(db: Queryable, where: SQL | undefined) {
  return db
    .select({ scim: scimUsers, email: users.email, name: users.name, givenName: users.givenName, familyName: users.familyName })
    .from(scimUsers)
    .innerJoin(users, eq(users.id, scimUsers.userId))
    .where(where);
}

const toRow = (row: { scim: typeof scimUsers.$inferSelect; email: string; name: string; givenName: string | null; familyName: string | null }): ScimUserRow => ({
  ...row.scim,
  email: row.email,
  name: row.name,
  givenName: row.givenName,
  familyName: row.familyName,
});

export async function listUsers(ctx: ScimContext, params: URLSearchParams) {
  const filter = parseEqFilter(params.get('filter'), ['userName', 'externalId', 'emails.value']);
  const { startIndex, count: limit } = pagination(params);
  const where = and(
    eq(scimUsers.orgId, ctx.orgId),
    filter?.attribute === 'userName' ? sql`lower(${scimUsers.userName}) = lower(${filter.value})` : undefined,
    filter?.attribute === 'externalId' ? eq(scimUsers.externalId, filter.value) : undefined,
    filter?.attribute === 'emails.value' ? eq(users.email, normalizeEmail(filter.value)) : undefined,
  );
  const [{ total } = { total: 0 }] = await ctx.db.select({ total: count() }).from(scimUsers).innerJoin(users, eq(users.id, scimUsers.userId)).where(where);
  const rows = limit === 0 ? [] : await scimUsersQuery(ctx.db, where).orderBy(asc(scimUsers.createdAt), asc(scimUsers.userId)).limit(limit).offset(startIndex - 1);
  return listResponse(rows.map((row) => userResource(ctx, toRow(row))), total, startIndex);
}

async function scimUserOf(db: Queryable, orgId: string, id: string): Promise<ScimUserRow> {
  const [row] = isUuid(id) ? await scimUsersQuery(db, and(eq(scimUsers.orgId, orgId), eq(scimUsers.userId, id))).limit(1) : [];
  if (!row) throw scimRefusal(404, `No User ${id.slice(0, 100)} in this organization.`);
  return toRow(row);
}

export async function getUser(ctx: ScimContext, id: string) {
  return userResource(ctx, await scimUserOf(ctx.db, ctx.orgId, id));
}

/** What a User body says, checked: RFC 7643 §4.1 (userName required; the primary email, else userName as one). */
interface UserFields {
  userName: string;
  externalId: string | null;
  email: string;
  /** The name the person is shown as (users.name): name.formatted, else the parts, else displayName. */
  name: string;
  givenName: string | null;
  familyName: string | null;
  active: boolean;
}

/** A part of a name (name.givenName, name.familyName): a string of at most 100 characters; null, empty or blank clears it. */
function namePart(value: unknown, label: string): string | null {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return null;
  const part = text(value, 100);
  if (part === undefined) throw scimRefusal(400, `${label} must be a string of at most 100 characters.`, 'invalidValue');
  return part;
}

/** A display name (displayName, name.formatted): a string of at most 200 characters; null, empty or blank is none. */
function displayValue(value: unknown, label: string): string | undefined {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return undefined;
  const display = text(value, 200);
  if (display === undefined) throw scimRefusal(400, `${label} must be a string of at most 200 characters.`, 'invalidValue');
  return display;
}

const fullName = (givenName: string | null, familyName: string | null): string | undefined => [givenName, familyName].filter(Boolean).join(' ') || undefined;

/**
 * A User's fields from a body (POST, PUT, or the state a PATCH left). What the body leaves out stays as `current`
 * has it; `keepName` false makes the display name follow the body alone (a PATCH that removed it or whose parts
 * changed a name made of them).
 */
function userFields(body: Record<string, unknown>, current?: UserFields, keepName = true): UserFields {
  const userName = text(body.userName, 320) ?? (body.userName === undefined ? current?.userName : undefined);
  if (!userName) throw scimRefusal(400, 'userName is required: a non-empty string of at most 320 characters.', 'invalidValue');
  const emails = Array.isArray(body.emails) ? (body.emails as { value?: unknown; primary?: unknown }[]) : [];
  const primary = emails.find((email) => email?.primary === true) ?? emails[0];
  const email = text(primary?.value, 320) ?? (emails.length === 0 && /^[^\s@]+@[^\s@]+$/.test(userName) ? userName : undefined) ?? current?.email;
  if (!email || !/^[^\s@]+@[^\s@]+$/.test(email)) throw scimRefusal(400, 'A User needs an email address (emails[primary].value, or a userName that is one).', 'invalidValue');
  if (body.name !== undefined && body.name !== null && (typeof body.name !== 'object' || Array.isArray(body.name))) {
    throw scimRefusal(400, 'name is a complex attribute: { formatted, givenName, familyName }.', 'invalidValue');
  }
  // RFC 7644 §3.5.1: a name left out of a PUT is not asserted (the parts stay); a name given is the whole of it.
  const name = body.name as { formatted?: unknown; givenName?: unknown; familyName?: unknown } | null | undefined;
  const givenName = name === undefined ? (current?.givenName ?? null) : namePart(name?.givenName, 'name.givenName');
  const familyName = name === undefined ? (current?.familyName ?? null) : namePart(name?.familyName, 'name.familyName');
  const [formatted, displayName] = [displayValue(name?.formatted, 'name.formatted'), displayValue(body.displayName, 'displayName')];
  const display = formatted ?? fullName(givenName, familyName) ?? displayName ?? (keepName ? current?.name : undefined) ?? email.split('@')[0]!;
  const active = body.active === undefined ? (current?.active ?? true) : bool(body.active);
  if (active === undefined) throw scimRefusal(400, 'active must be a boolean.', 'invalidValue');
  const externalId = body.externalId === undefined ? (current?.externalId ?? null) : body.externalId === null ? null : (text(body.externalId, 300) ?? null);
  return { userName, externalId, email: normalizeEmail(email), name: display, givenName, familyName, active };
}

async function refuseOutsideDomains(db: Queryable, orgId: string, email: string): Promise<void> {
  const domain = domainOfEmail(email);
  const [held] = domain
    ? await db
        .select({ id: orgDomains.id })
        .from(orgDomains)
        .where(and(eq(orgDomains.orgId, orgId), eq(orgDomains.domain, domain), isNotNull(orgDomains.verifiedAt)))
        .limit(1)
    : [];
  if (!held) throw scimRefusal(400, `The address ${email.slice(0, 320)} is not at one of this organization's verified domains: a directory provisions only its own people.`, 'invalidValue');
}

/** The role a provisioned person gets: the default role of the connection that signs in their domain, else member. */
async function provisionedRole(db: Queryable, orgId: string, email: string): Promise<'member' | 'admin'> {
  const domain = domainOfEmail(email);
  if (!domain) return 'member';
  const [row] = await db
    .select({ role: identityConnections.defaultRole })
    .from(orgDomains)
    .innerJoin(identityConnections, eq(identityConnections.id, orgDomains.connectionId))
    .where(and(eq(orgDomains.orgId, orgId), eq(orgDomains.domain, domain)))
    .limit(1);
  return row?.role === 'admin' ? 'admin' : 'member';
}

async function refuseTakenUserName(tx: Queryable, orgId: string, userName: string, except?: string): Promise<void> {
  const [taken] = await tx
    .select({ userId: scimUsers.userId })
    .from(scimUsers)
    .where(and(eq(scimUsers.orgId, orgId), sql`lower(${scimUsers.userName}) = lower(${userName})`, except ? sql`${scimUsers.userId} <> ${except}` : undefined))
    .limit(1);
  if (taken) throw scimRefusal(409, `userName ${userName.slice(0, 320)} is already provisioned.`, 'uniqueness');
}

/** POST /Users (RFC 7644 §3.3). */
export async function createScimUser(ctx: ScimContext, body: Record<string, unknown>) {
  const fields = userFields(resourceBody(body, USER_RESOURCE));
  return provisioning(ctx, async (tx) => {
    await refuseOutsideDomains(tx, ctx.orgId, fields.email);
    await refuseTakenUserName(tx, ctx.orgId, fields.userName);
    let user = await findUserByEmail(tx, fields.email);
    const created = !user;
    if (user) {
      const [already] = await tx.select({ userId: scimUsers.userId }).from(scimUsers).where(and(eq(scimUsers.orgId, ctx.orgId), eq(scimUsers.userId, user.id))).limit(1);
      if (already) throw scimRefusal(409, `${fields.email} is already provisioned.`, 'uniqueness');
    } else {
      // The domain is verified: the organization controls this mailbox.
      user = await createUser(tx, { email: fields.email, name: fields.name, givenName: fields.givenName, familyName: fields.familyName, passwordHash: null, emailVerified: true });
    }
    await tx.insert(scimUsers).values({ orgId: ctx.orgId, userId: user.id, userName: fields.userName, externalId: fields.externalId, active: fields.active, createdByProvisioning: created });
    if (fields.active) await startMembership(tx, ctx, user, fields.email);
    await audit(tx, { action: 'scim.user_created', subject: { type: 'person', id: user.id, label: user.email }, details: { userName: fields.userName, accountCreated: created, active: fields.active } });
    return userResource(ctx, await scimUserOf(tx, ctx.orgId, user.id));
  });
}

/** Applies a User's new state: the account's name and address, the SCIM row, and the membership (active or not). */
async function applyUser(tx: Transaction, ctx: ScimContext, current: ScimUserRow, next: UserFields): Promise<ScimUserRow> {
  if (next.userName.toLowerCase() !== current.userName.toLowerCase()) await refuseTakenUserName(tx, ctx.orgId, next.userName, current.userId);
  if (next.email !== current.email) {
    await refuseOutsideDomains(tx, ctx.orgId, next.email);
    const owner = await findUserByEmail(tx, next.email);
    if (owner && owner.id !== current.userId) throw scimRefusal(409, `${next.email} belongs to another account.`, 'uniqueness');
  }
  const user = await findUserById(tx, current.userId);
  if (!user) throw scimRefusal(404, `No User ${current.userId}.`);
  // The account's own name and address are the directory's to change only while the account belongs to this
  // organization alone: a person who is also a member elsewhere keeps theirs (the User still says what the directory sent).
  const [elsewhere] = await tx
    .select({ orgId: memberships.orgId })
    .from(memberships)
    .where(and(eq(memberships.userId, user.id), sql`${memberships.orgId} <> ${ctx.orgId}`))
    .limit(1);
  if (elsewhere && next.email !== current.email) throw scimRefusal(400, 'This person belongs to other organizations too: their address is theirs to change, not the directory\'s.', 'mutability');
  if (!elsewhere) await tx.update(users).set({ name: next.name, givenName: next.givenName, familyName: next.familyName, email: next.email }).where(eq(users.id, user.id));
  await tx
    .update(scimUsers)
    .set({ userName: next.userName, externalId: next.externalId, active: next.active, updatedAt: sql`now()` })
    .where(and(eq(scimUsers.orgId, ctx.orgId), eq(scimUsers.userId, user.id)));
  let action = 'scim.user_updated';
  const details: Record<string, unknown> = { userName: next.userName };
  if (current.active && !next.active) {
    action = 'scim.user_deactivated';
    Object.assign(details, await endMembership(tx, ctx, user));
  } else if (!current.active && next.active) {
    action = 'scim.user_reactivated';
    await startMembership(tx, ctx, user, next.email);
  }
  await audit(tx, { action, subject: { type: 'person', id: user.id, label: next.email }, details });
  return scimUserOf(tx, ctx.orgId, user.id);
}

/**
 * The membership ends as when an admin removes the member (grants, refresh tokens, teams, agents' use, logout tokens
 * to the apps) — refused for the organization's only owner, which would leave it without one.
 */
async function endMembership(tx: Transaction, ctx: ScimContext, user: User) {
  const role = await findMembershipRole(tx, ctx.orgId, user.id);
  if (!role) return { wasMember: false };
  const operation = operationOf(tx);
  // The member command every door uses: its lock, the last-owner rule, the grants it ends, and member.removed in
  // the organization's vocabulary (its webhooks hear it, whoever removed the person). A directory may remove an owner
  // (an admin's own directory is the authority on who works there), never the only one.
  try {
    const ended = await removeMemberCommand({ tx, org: operation.org, mayTransferOwnership: true, audit: operation.audit }, user.id);
    return { wasMember: true, role, grantsRevoked: ended.grantsRevoked, teamsLeft: ended.teamsLeft, agentsLeft: ended.agentsLeft };
  } catch (error) {
    if (refusalOf(error, 'command')?.text?.key === 'refusals.members.lastOwner') throw scimRefusal(409, "The organization's only owner cannot be deactivated by provisioning.", 'mutability');
    throw error;
  }
}

/** Makes the person a member (if not one), said as member.added (its webhooks hear it) with how. */
async function startMembership(tx: Transaction, ctx: ScimContext, user: User, email: string): Promise<void> {
  if (await findMembershipRole(tx, ctx.orgId, user.id)) return;
  const role = await provisionedRole(tx, ctx.orgId, email);
  await addMember(tx, { orgId: ctx.orgId, userId: user.id, role });
  await audit(tx, { action: 'member.added', subject: { type: 'person', id: user.id, label: user.email }, details: { role } });
}

/** PUT /Users/{id} (RFC 7644 §3.5.1): the whole resource replaced. */
export async function replaceScimUser(ctx: ScimContext, id: string, body: Record<string, unknown>) {
  return provisioning(ctx, async (tx) => {
    const current = await scimUserOf(tx, ctx.orgId, id);
    const next = userFields(resourceBody(body, USER_RESOURCE), { ...current, active: true });
    return userResource(ctx, await applyUser(tx, ctx, current, next));
  });
}

/**
 * PATCH /Users/{id}: the attributes Portico keeps (active, userName, name, displayName, externalId, emails) change;
 * the others a directory sends are ignored, `id` may only be repeated.
 */
export async function patchScimUser(ctx: ScimContext, id: string, body: Record<string, unknown>) {
  const operations = patchOperations(body);
  return provisioning(ctx, async (tx) => {
    const current = await scimUserOf(tx, ctx.orgId, id);
    const state: Record<string, unknown> = { userName: current.userName, externalId: current.externalId, emails: [{ value: current.email, primary: true }], active: current.active };
    // The name the person is shown as (name.formatted and displayName are one value here), undefined once removed.
    let display: string | undefined = current.name;
    let displayWritten = false;
    let givenName = current.givenName;
    let familyName = current.familyName;
    for (const operation of operations) {
      for (const { target, value, path } of operationTargets(operation, USER_RESOURCE)) {
        const { attribute, sub } = target;
        if (target.schema !== USER_SCHEMA || !USER_RESOURCE.kept.has(attribute)) {
          if (attribute === 'id') refuseIdChange(operation, value, current.userId);
          else if (attribute === 'groups') throw scimRefusal(400, 'groups is read-only on a User: membership changes go to the Group (RFC 7643 §4.1.2).', 'mutability');
          continue; // not kept: an extension's, phone numbers, addresses, … — and meta, which a server ignores (RFC 7643 §3.1)
        }
        if (attribute === 'name' && sub !== undefined && !NAME_KEPT.includes(sub)) continue;
        if (attribute === 'emails' && sub !== undefined && sub !== 'value') continue;
        const key = sub === undefined ? attribute : `${attribute}.${sub}`;
        if (operation.op === 'remove') {
          if (key === 'externalId') state.externalId = null;
          else if (key === 'name.givenName') givenName = null;
          else if (key === 'name.familyName') familyName = null;
          else if (key === 'displayName' || key === 'name.formatted' || key === 'name') {
            [display, displayWritten] = [undefined, true];
            if (key === 'name') [givenName, familyName] = [null, null];
          } else throw scimRefusal(400, `${path.slice(0, 100)} cannot be removed.`, 'mutability');
        } else if (key === 'active') state.active = value;
        else if (key === 'userName') state.userName = value;
        else if (key === 'externalId') state.externalId = value;
        else if (key === 'displayName' || key === 'name.formatted') [display, displayWritten] = [displayValue(value, path), true];
        else if (key === 'name.givenName') givenName = namePart(value, 'name.givenName');
        else if (key === 'name.familyName') familyName = namePart(value, 'name.familyName');
        else if (key === 'name') {
          // RFC 7644 §3.5.2.1, §3.5.2.3: the sub-attributes given replace theirs; the others stay.
          if (!isObject(value)) throw scimRefusal(400, 'name is a complex attribute: { formatted, givenName, familyName }.', 'invalidValue');
          const parts = nameValue(value, 'invalidPath');
          if ('formatted' in parts) [display, displayWritten] = [displayValue(parts.formatted, 'name.formatted'), true];
          if ('givenName' in parts) givenName = namePart(parts.givenName, 'name.givenName');
          if ('familyName' in parts) familyName = namePart(parts.familyName, 'name.familyName');
        } else {
          // emails, emails[type eq "work"], emails[type eq "work"].value: the address Portico keeps is the one given.
          state.emails = Array.isArray(value) ? value : [{ value: isObject(value) ? value.value : value, primary: true }];
        }
      }
    }
    // A display name made of the parts follows them, unless the operations set it themselves.
    const madeOfParts = current.name === fullName(current.givenName, current.familyName);
    if (!displayWritten && madeOfParts && (givenName !== current.givenName || familyName !== current.familyName)) display = undefined;
    state.name = { formatted: display, givenName, familyName };
    const next = userFields(state, current, display !== undefined);
    return userResource(ctx, await applyUser(tx, ctx, current, next));
  });
}

/** DELETE /Users/{id} (RFC 7644 §3.6): the person leaves the organization; the account stays (it may be elsewhere). */
export async function deleteScimUser(ctx: ScimContext, id: string): Promise<void> {
  await provisioning(ctx, async (tx) => {
    const current = await scimUserOf(tx, ctx.orgId, id);
    const user = await findUserById(tx, current.userId);
    const ended = user ? await endMembership(tx, ctx, user) : {};
    await tx.delete(scimUsers).where(and(eq(scimUsers.orgId, ctx.orgId), eq(scimUsers.userId, current.userId)));
    await audit(tx, { action: 'scim.user_deleted', subject: { type: 'person', id: current.userId, label: current.email }, details: { userName: current.userName, ...ended } });
  });
}
