// What a person or an agent may do in an app, and why. The model:
// - a person (an enabled member of the app's organization): the baseline `mcp`, the grants of the teams they belong
//   to, and their direct grants;
// - an agent in own mode: exactly its direct grants (no baseline, no team, nothing from anyone's role);
// - an agent in delegated mode: the person's, never more.
// Only permissions the app's catalog offers count (lib/clients/permission-catalog.ts): a retired one counts for no
// one. Each permission comes with its sources, so that "why can X do Y" has an answer.
import { and, eq, sql } from 'drizzle-orm';
import { preparedQuery, type Queryable } from '../db/client';
import { agentConnections, agentGrants, agents, apps, memberships, personGrants, teamGrants, teamMembers, teams, users } from '../db/schema';
import { BASELINE_SCOPE, listPermissionCatalog, sortScopes, type CatalogPermission } from '../clients/permission-catalog';
import { isUuid } from '../util/uuid';
import { findOrgAgent } from './agents';
import { normalizeEmail } from '../util/email';

export type PermissionSource =
  | { kind: 'baseline' }
  | { kind: 'team'; teamId: string; team: string }
  | { kind: 'direct' }
  | { kind: 'agent_direct' }
  | { kind: 'delegated'; fromUserId: string; from: string };

export interface EffectivePermission {
  scope: string;
  description: string;
  sources: PermissionSource[];
}

/** How a source reads in an explanation ("team Finance", "direct", "baseline", "delegated from ada@…"). */
export function describeSource(source: PermissionSource): string {
  switch (source.kind) {
    case 'baseline':
      return 'baseline';
    case 'team':
      return `team ${source.team}`;
    case 'direct':
    case 'agent_direct':
      return 'direct';
    case 'delegated':
      return `delegated from ${source.from}`;
  }
}

function collect(entries: { scope: string; source: PermissionSource }[], catalog: Map<string, string>): EffectivePermission[] {
  const byScope = new Map<string, PermissionSource[]>();
  for (const { scope, source } of entries) {
    if (!catalog.has(scope)) continue; // not offered (never declared, or retired): counts for no one
    byScope.set(scope, [...(byScope.get(scope) ?? []), source]);
  }
  return sortScopes(byScope.keys()).map((scope) => ({ scope, description: catalog.get(scope)!, sources: byScope.get(scope)! }));
}

async function offeredCatalog(db: Queryable, appId: string, catalog?: readonly CatalogPermission[]): Promise<Map<string, string>> {
  return new Map((catalog ?? (await listPermissionCatalog(db, appId))).filter((entry) => !entry.retired).map((entry) => [entry.scope, entry.description]));
}

/**
 * What a person holds on an app, in one statement (every token request and every AuthZEN decision about a person
 * reads it): whether they are an enabled member of the organization, the grants of their teams on the app, and their
 * direct grants. Prepared once per database handle.
 */
function personHoldingsStatement(db: Queryable) {
  const value = (name: string) => sql.placeholder(name);
  return preparedQuery(db, 'permissions.person', () =>
    db
      .select({
        member: sql<boolean>`exists (select 1 from ${memberships} m join ${users} u on u.id = m.user_id where m.org_id = ${value('orgId')} and m.user_id = ${value('userId')} and u.disabled_at is null)`,
        teams: sql<{ scope: string; teamId: string; team: string }[] | string>`coalesce((select json_agg(json_build_object('scope', tg.scope, 'teamId', t.id, 'team', t.name)) from ${teamGrants} tg join ${teams} t on t.id = tg.team_id join ${teamMembers} tm on tm.team_id = t.id and tm.user_id = ${value('userId')} where tg.app_id = ${value('appId')} and t.org_id = ${value('orgId')}), '[]'::json)`,
        direct: sql<string[] | string>`coalesce((select json_agg(pg.scope) from ${personGrants} pg where pg.user_id = ${value('userId')} and pg.app_id = ${value('appId')} and pg.org_id = ${value('orgId')}), '[]'::json)`,
      })
      .from(sql`(select 1) as one`)
      .prepare('permissions_person'),
  );
}

/**
 * A person's permissions on an app of their organization; none when they are not an enabled member of it. `catalog`:
 * the app's catalog when the caller has read it already (a token request reads it once).
 */
export async function effectivePermissionsOfPerson(
  db: Queryable,
  input: { orgId: string; appId: string; userId: string },
  catalog?: readonly CatalogPermission[],
): Promise<EffectivePermission[]> {
  const [[holdings], offered] = await Promise.all([personHoldingsStatement(db).execute({ orgId: input.orgId, appId: input.appId, userId: input.userId }), offeredCatalog(db, input.appId, catalog)]);
  // A boolean from both drivers; anything else (a driver's text 'f') is not membership.
  if (holdings?.member !== true) return [];
  // postgres.js parses json; the embedded database's driver may hand it over as text.
  const json = <Value>(value: Value | string): Value => (typeof value === 'string' ? (JSON.parse(value) as Value) : value);
  return collect(
    [
      { scope: BASELINE_SCOPE, source: { kind: 'baseline' } },
      ...json(holdings.teams).map((row) => ({ scope: row.scope, source: { kind: 'team' as const, teamId: row.teamId, team: row.team } })),
      ...json(holdings.direct).map((scope) => ({ scope, source: { kind: 'direct' as const } })),
    ],
    offered,
  );
}

/** An agent acting as itself (own mode): exactly its direct grants on the app, nothing else. */
export async function effectivePermissionsOfAgent(db: Queryable, input: { orgId: string; appId: string; agentId: string }): Promise<EffectivePermission[]> {
  const [agent] = await db.select({ disabledAt: agents.disabledAt }).from(agents).where(and(eq(agents.id, input.agentId), eq(agents.orgId, input.orgId))).limit(1);
  if (!agent || agent.disabledAt) return [];
  const [catalog, direct] = await Promise.all([
    offeredCatalog(db, input.appId),
    db.select({ scope: agentGrants.scope }).from(agentGrants).where(and(eq(agentGrants.agentId, input.agentId), eq(agentGrants.appId, input.appId))),
  ]);
  return collect(direct.map((row) => ({ scope: row.scope, source: { kind: 'agent_direct' as const } })), catalog);
}

/**
 * An agent acting for a person (delegated mode, `act`): the person's permissions, never more; narrowed to `narrowTo`
 * when the connection chose a subset.
 */
export async function effectivePermissionsOfDelegation(
  db: Queryable,
  input: { orgId: string; appId: string; userId: string; narrowTo?: readonly string[] | null },
): Promise<EffectivePermission[]> {
  const [person] = await db.select({ email: users.email }).from(users).where(eq(users.id, input.userId)).limit(1);
  const own = await effectivePermissionsOfPerson(db, input);
  const narrowed = input.narrowTo ? own.filter((permission) => input.narrowTo!.includes(permission.scope)) : own;
  return narrowed.map((permission) => ({ ...permission, sources: [{ kind: 'delegated', fromUserId: input.userId, from: person?.email ?? input.userId }] }));
}

export interface PermissionExplanation {
  subject: { kind: 'person' | 'agent'; id: string; label: string; mode?: 'own' | 'delegated' };
  permissions: EffectivePermission[];
}

/**
 * "Why can X do Y": the effective permissions of a person (by email or id) or an agent (by id) on an app of the
 * organization, each with its sources. An agent is explained as its connection to the app acts (own, or delegated
 * for its person); without a connection, as itself. Undefined for a subject that is not in the organization.
 */
export async function explainPermissions(db: Queryable, input: { orgId: string; appId: string; subject: string }): Promise<PermissionExplanation | undefined> {
  const subject = input.subject.trim();
  if (subject.startsWith('agt_')) {
    const agent = await findOrgAgent(db, input.orgId, subject);
    if (!agent) return undefined;
    const [connection] = await db.select().from(agentConnections).where(and(eq(agentConnections.agentId, agent.id), eq(agentConnections.appId, input.appId))).limit(1);
    if (connection?.mode === 'delegated' && connection.delegateUserId) {
      return {
        subject: { kind: 'agent', id: agent.id, label: agent.name, mode: 'delegated' },
        permissions: await effectivePermissionsOfDelegation(db, { orgId: input.orgId, appId: input.appId, userId: connection.delegateUserId, narrowTo: connection.narrowedTo }),
      };
    }
    return { subject: { kind: 'agent', id: agent.id, label: agent.name, mode: 'own' }, permissions: await effectivePermissionsOfAgent(db, { orgId: input.orgId, appId: input.appId, agentId: agent.id }) };
  }
  const email = normalizeEmail(subject);
  const byId = isUuid(subject);
  const [person] = await db
    .select({ id: users.id, email: users.email })
    .from(users)
    .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.orgId, input.orgId)))
    .where(byId ? eq(users.id, subject) : eq(users.email, email))
    .limit(1);
  if (!person) return undefined;
  return { subject: { kind: 'person', id: person.id, label: person.email }, permissions: await effectivePermissionsOfPerson(db, { orgId: input.orgId, appId: input.appId, userId: person.id }) };
}

/** A member's direct grants in an organization, with the app each is on (their page lists and revokes them). */
export async function listDirectPersonGrants(db: Queryable, input: { orgId: string; userId: string }): Promise<{ appId: string; appName: string; scope: string }[]> {
  return db
    .select({ appId: apps.id, appName: apps.name, scope: personGrants.scope })
    .from(personGrants)
    .innerJoin(apps, eq(apps.id, personGrants.appId))
    .where(and(eq(personGrants.orgId, input.orgId), eq(personGrants.userId, input.userId)))
    .orderBy(apps.name, personGrants.scope);
}
