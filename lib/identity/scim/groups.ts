// SCIM Groups (RFC 7643 §4.2) are teams: scim_groups marks those the directory manages; their members are the
// organization's provisioned people.
import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { scimGroups, scimUsers, teamMembers, teams, users } from '../../db/schema';
import { isUuid } from '../../util/uuid';
import { scimRefusal } from '../refusal-codes';
import { GROUP_RESOURCE, resourceBody } from './attributes';
import { operationTargets, patchOperations, refuseIdChange } from './patch';
import { GROUP_SCHEMA, type Projection, type ScimContext, audit, listResponse, pagination, parseEqFilter, provisioning, shows, text } from './resources';

/** A Group; its members read only when the response shows them (a large group's cost, RFC 7644 §3.9). */
async function groupResource(ctx: ScimContext, db: Queryable, team: { id: string; name: string; createdAt: Date }, scim: typeof scimGroups.$inferSelect, view: Projection = {}) {
  const members = !shows(view, 'members')
    ? undefined
    : await db
        .select({ userId: teamMembers.userId, email: users.email })
        .from(teamMembers)
        .innerJoin(users, eq(users.id, teamMembers.userId))
        .where(eq(teamMembers.teamId, team.id))
        .orderBy(asc(users.email));
  return {
    schemas: [GROUP_SCHEMA],
    id: team.id,
    ...(scim.externalId ? { externalId: scim.externalId } : {}),
    displayName: team.name,
    ...(members ? { members: members.map((member) => ({ value: member.userId, display: member.email, $ref: `${ctx.base}/Users/${member.userId}`, type: 'User' })) } : {}),
    meta: { resourceType: 'Group', created: team.createdAt.toISOString(), lastModified: scim.updatedAt.toISOString(), location: `${ctx.base}/Groups/${team.id}`, version: `W/"${scim.updatedAt.getTime()}"` },
  };
}

async function scimGroupOf(db: Queryable, orgId: string, id: string) {
  const [row] = isUuid(id)
    ? await db
        .select({ team: teams, scim: scimGroups })
        .from(scimGroups)
        .innerJoin(teams, eq(teams.id, scimGroups.teamId))
        .where(and(eq(scimGroups.orgId, orgId), eq(scimGroups.teamId, id)))
        .limit(1)
    : [];
  if (!row) throw scimRefusal(404, `No Group ${id.slice(0, 100)} in this organization.`);
  return row;
}

export async function listGroups(ctx: ScimContext, params: URLSearchParams, view: Projection = {}) {
  const filter = parseEqFilter(params.get('filter'), ['displayName', 'externalId']);
  const { startIndex, count: limit } = pagination(params);
  const where = and(
    eq(scimGroups.orgId, ctx.orgId),
    filter?.attribute === 'displayName' ? sql`lower(${teams.name}) = lower(${filter.value})` : undefined,
    filter?.attribute === 'externalId' ? eq(scimGroups.externalId, filter.value) : undefined,
  );
  const [{ total } = { total: 0 }] = await ctx.db.select({ total: count() }).from(scimGroups).innerJoin(teams, eq(teams.id, scimGroups.teamId)).where(where);
  const rows = limit === 0 ? [] : await ctx.db.select({ team: teams, scim: scimGroups }).from(scimGroups).innerJoin(teams, eq(teams.id, scimGroups.teamId)).where(where).orderBy(asc(teams.createdAt), asc(teams.id)).limit(limit).offset(startIndex - 1);
  const resources = [];
  for (const row of rows) resources.push(await groupResource(ctx, ctx.db, row.team, row.scim, view));
  return listResponse(resources, total, startIndex);
}

export async function getGroup(ctx: ScimContext, id: string, view: Projection = {}) {
  const row = await scimGroupOf(ctx.db, ctx.orgId, id);
  return groupResource(ctx, ctx.db, row.team, row.scim, view);
}

/** The members a Group body names: provisioned, active Users of this organization (by their id). */
async function memberIds(tx: Queryable, orgId: string, members: unknown): Promise<string[]> {
  if (members === undefined || members === null) return [];
  if (!Array.isArray(members) || members.length > 10_000) throw scimRefusal(400, 'members must be an array of { value: <User id> }.', 'invalidValue');
  const ids = [...new Set(members.map((member: { value?: unknown }) => (typeof member?.value === 'string' ? member.value : '')))];
  if (ids.some((memberId) => !isUuid(memberId))) throw scimRefusal(400, 'Each member is { value: <User id> } of a provisioned User.', 'invalidValue');
  if (ids.length === 0) return [];
  const known = await tx
    .select({ userId: scimUsers.userId })
    .from(scimUsers)
    .where(and(eq(scimUsers.orgId, orgId), inArray(scimUsers.userId, ids), eq(scimUsers.active, true)));
  if (known.length !== ids.length) throw scimRefusal(400, 'A member is not an active User provisioned in this organization.', 'invalidValue');
  return ids;
}

function groupName(value: unknown): string {
  const name = text(value, 100);
  if (!name) throw scimRefusal(400, 'displayName is required: a non-empty string of at most 100 characters.', 'invalidValue');
  return name;
}

async function refuseTakenTeamName(tx: Queryable, orgId: string, name: string, except?: string) {
  const [taken] = await tx
    .select({ id: teams.id })
    .from(teams)
    .where(and(eq(teams.orgId, orgId), sql`lower(${teams.name}) = lower(${name})`, except ? sql`${teams.id} <> ${except}` : undefined))
    .limit(1);
  if (taken) throw scimRefusal(409, `A team called ${name} already exists.`, 'uniqueness');
}

async function setMembers(tx: Queryable, teamId: string, ids: string[]) {
  await tx.delete(teamMembers).where(and(eq(teamMembers.teamId, teamId), ids.length > 0 ? sql`${teamMembers.userId} not in (${sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `)})` : undefined));
  if (ids.length > 0) await tx.insert(teamMembers).values(ids.map((userId) => ({ teamId, userId }))).onConflictDoNothing();
}

export async function createScimGroup(ctx: ScimContext, request: Record<string, unknown>) {
  const body = resourceBody(request, GROUP_RESOURCE);
  const name = groupName(body.displayName);
  return provisioning(ctx, async (tx) => {
    await refuseTakenTeamName(tx, ctx.orgId, name);
    const ids = await memberIds(tx, ctx.orgId, body.members);
    const [team] = await tx.insert(teams).values({ orgId: ctx.orgId, name }).returning();
    const [scim] = await tx.insert(scimGroups).values({ teamId: team!.id, orgId: ctx.orgId, externalId: text(body.externalId, 300) ?? null }).returning();
    await setMembers(tx, team!.id, ids);
    await audit(tx, { action: 'scim.group_created', subject: { type: 'team', id: team!.id, label: name }, details: { members: ids.length } });
    return groupResource(ctx, tx, team!, scim!);
  });
}

export async function replaceScimGroup(ctx: ScimContext, id: string, request: Record<string, unknown>) {
  const body = resourceBody(request, GROUP_RESOURCE);
  const name = groupName(body.displayName);
  return provisioning(ctx, async (tx) => {
    const row = await scimGroupOf(tx, ctx.orgId, id);
    await refuseTakenTeamName(tx, ctx.orgId, name, row.team.id);
    const ids = await memberIds(tx, ctx.orgId, body.members);
    const [team] = await tx.update(teams).set({ name }).where(eq(teams.id, row.team.id)).returning();
    const [scim] = await tx.update(scimGroups).set({ externalId: body.externalId === undefined ? row.scim.externalId : (text(body.externalId, 300) ?? null), updatedAt: sql`now()` }).where(eq(scimGroups.teamId, row.team.id)).returning();
    await setMembers(tx, row.team.id, ids);
    await audit(tx, { action: 'scim.group_updated', subject: { type: 'team', id: row.team.id, label: name }, details: { members: ids.length } });
    return groupResource(ctx, tx, team!, scim!);
  });
}

/**
 * PATCH /Groups/{id}: displayName, externalId, and members added, removed (`members[value eq "…"]`) or replaced;
 * `id` may only be repeated (Okta's rename sends it in the value), `meta` and `schemas` are ignored.
 */
export async function patchScimGroup(ctx: ScimContext, id: string, body: Record<string, unknown>) {
  const operations = patchOperations(body);
  return provisioning(ctx, async (tx) => {
    const row = await scimGroupOf(tx, ctx.orgId, id);
    let name = row.team.name;
    let externalId = row.scim.externalId;
    const current = (await tx.select({ userId: teamMembers.userId }).from(teamMembers).where(eq(teamMembers.teamId, row.team.id))).map((member) => member.userId);
    const members = new Set(current);
    for (const operation of operations) {
      for (const { target, value, path } of operationTargets(operation, GROUP_RESOURCE)) {
        const { attribute, filter, sub } = target;
        if (attribute === 'id') refuseIdChange(operation, value, row.team.id);
        else if (attribute === 'meta' || attribute === 'schemas') continue; // the server's own (RFC 7643 §3.1)
        else if (attribute === 'displayName') {
          if (operation.op === 'remove') throw scimRefusal(400, 'displayName cannot be removed: a Group has one.', 'mutability');
          name = groupName(value);
        } else if (attribute === 'externalId') externalId = operation.op === 'remove' ? null : (text(value, 300) ?? null);
        else if (attribute === 'members' && sub === undefined && filter !== undefined) {
          // Okta's `members[value eq "<id>"]`, to remove one member.
          if (operation.op !== 'remove') throw scimRefusal(400, `${path.slice(0, 100)}: a value filter on members is for remove only here.`, 'invalidPath');
          const one = /^\s*value\s+eq\s+"([^"]*)"\s*$/i.exec(filter);
          if (!one) throw scimRefusal(400, 'Members are removed by `members[value eq "<User id>"]` only.', 'invalidFilter');
          members.delete(one[1]!);
        } else if (attribute === 'members' && sub === undefined && operation.op === 'remove') {
          if (value === undefined) members.clear();
          else for (const member of Array.isArray(value) ? value : []) members.delete(String((member as { value?: unknown })?.value ?? ''));
        } else if (attribute === 'members' && sub === undefined) {
          const ids = await memberIds(tx, ctx.orgId, value);
          if (operation.op === 'replace') members.clear();
          for (const memberId of ids) members.add(memberId);
        } else throw scimRefusal(400, `${path.slice(0, 100)}: members change as a whole or by members[value eq "<User id>"].`, 'invalidPath');
      }
    }
    if (name !== row.team.name) await refuseTakenTeamName(tx, ctx.orgId, name, row.team.id);
    const [team] = await tx.update(teams).set({ name }).where(eq(teams.id, row.team.id)).returning();
    const [scim] = await tx.update(scimGroups).set({ externalId, updatedAt: sql`now()` }).where(eq(scimGroups.teamId, row.team.id)).returning();
    await setMembers(tx, row.team.id, [...members]);
    await audit(tx, { action: 'scim.group_updated', subject: { type: 'team', id: row.team.id, label: name }, details: { members: members.size } });
    return groupResource(ctx, tx, team!, scim!);
  });
}

export async function deleteScimGroup(ctx: ScimContext, id: string): Promise<void> {
  await provisioning(ctx, async (tx) => {
    const row = await scimGroupOf(tx, ctx.orgId, id);
    await tx.delete(teams).where(eq(teams.id, row.team.id));
    await audit(tx, { action: 'scim.group_deleted', subject: { type: 'team', id: row.team.id, label: row.team.name } });
  });
}
