// Teams inside an organization, and the scopes on apps they grant to their members. People only: agents never
// inherit a team grant (they hold direct grants alone).
import { and, eq } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { apps, teamGrants, teamMembers, teams, users } from '../db/schema';
import { isUuid } from '../util/uuid';

export type Team = typeof teams.$inferSelect;

export async function createTeam(db: Queryable, input: { orgId: string; name: string }): Promise<Team> {
  const [team] = await db.insert(teams).values(input).returning();
  if (!team) throw new Error('team insert returned nothing');
  return team;
}

export async function addTeamMember(db: Queryable, teamId: string, userId: string): Promise<void> {
  await db.insert(teamMembers).values({ teamId, userId }).onConflictDoNothing();
}

export async function removeTeamMember(db: Queryable, teamId: string, userId: string): Promise<void> {
  await db.delete(teamMembers).where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)));
}

/** Grants a scope on an app to a team. The app must belong to the team's organization. */
export async function grantTeamScope(db: Queryable, input: { teamId: string; appId: string; scope: string }): Promise<void> {
  const [match] = await db
    .select({ id: teams.id })
    .from(teams)
    .innerJoin(apps, eq(apps.orgId, teams.orgId))
    .where(and(eq(teams.id, input.teamId), eq(apps.id, input.appId)))
    .limit(1);
  if (!match) throw new Error('the app does not belong to the team’s organization');
  await db.insert(teamGrants).values(input).onConflictDoNothing();
}

export async function revokeTeamScope(db: Queryable, input: { teamId: string; appId: string; scope: string }): Promise<void> {
  await db
    .delete(teamGrants)
    .where(and(eq(teamGrants.teamId, input.teamId), eq(teamGrants.appId, input.appId), eq(teamGrants.scope, input.scope)));
}

/** The scopes a person holds on an app through the teams they belong to. */
export async function teamScopesOf(db: Queryable, userId: string, appId: string): Promise<string[]> {
  const rows = await db
    .selectDistinct({ scope: teamGrants.scope })
    .from(teamGrants)
    .innerJoin(teamMembers, eq(teamMembers.teamId, teamGrants.teamId))
    .where(and(eq(teamMembers.userId, userId), eq(teamGrants.appId, appId)));
  return rows.map((row) => row.scope).sort();
}

export interface TeamListing {
  team: Team;
  members: { userId: string; email: string }[];
  grants: { appId: string; appName: string; scope: string }[];
}

/** The organization's teams by name, nothing else: what a picker of teams needs (one statement, not three). */
export async function listTeamNames(db: Queryable, orgId: string): Promise<{ id: string; name: string }[]> {
  return db.select({ id: teams.id, name: teams.name }).from(teams).where(eq(teams.orgId, orgId)).orderBy(teams.name);
}

export async function listTeams(db: Queryable, orgId: string): Promise<TeamListing[]> {
  const all = await db.select().from(teams).where(eq(teams.orgId, orgId)).orderBy(teams.name);
  const memberRows = await db
    .select({ teamId: teamMembers.teamId, userId: users.id, email: users.email })
    .from(teamMembers)
    .innerJoin(teams, eq(teams.id, teamMembers.teamId))
    .innerJoin(users, eq(users.id, teamMembers.userId))
    .where(eq(teams.orgId, orgId))
    .orderBy(users.email);
  const grantRows = await db
    .select({ teamId: teamGrants.teamId, appId: apps.id, appName: apps.name, scope: teamGrants.scope })
    .from(teamGrants)
    .innerJoin(teams, eq(teams.id, teamGrants.teamId))
    .innerJoin(apps, eq(apps.id, teamGrants.appId))
    .where(eq(teams.orgId, orgId))
    .orderBy(apps.name, teamGrants.scope);
  return all.map((team) => ({
    team,
    members: memberRows.filter((row) => row.teamId === team.id).map(({ userId, email }) => ({ userId, email })),
    grants: grantRows.filter((row) => row.teamId === team.id).map(({ appId, appName, scope }) => ({ appId, appName, scope })),
  }));
}

export async function findOrgTeam(db: Queryable, orgId: string, teamId: string): Promise<Team | undefined> {
  if (!isUuid(teamId)) return undefined;
  const [team] = await db.select().from(teams).where(and(eq(teams.id, teamId), eq(teams.orgId, orgId))).limit(1);
  return team;
}
