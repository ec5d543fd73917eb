// What a person with `teams.manage` does to an organization's teams, once: the console calls these (and so will
// every other door), each one change and one audit event through the organization-operation kernel's context.
import { announcePermissionChange, teamMemberIds } from './claims-change';
import type { AuditRecord } from '../audit/events';
import type { Queryable } from '../db/client';
import { findGrantableApp } from '../clients/apps';
import { refuseUnlessOffered } from '../clients/permission-catalog';
import { localized } from '../i18n/catalogs';
import { findMembershipRole } from './memberships';
import { suspendAgentsNobodyAnswersFor } from './agent-lifecycle';
import { addTeamMember, createTeam, findOrgTeam, grantTeamScope, listTeams, removeTeamMember, revokeTeamScope, type Team } from './teams';
import { findUserById } from '../accounts/users';
import { commandRefusal } from './refusal-codes';

export interface TeamCommandContext {
  tx: Queryable;
  org: { id: string };
  audit(record: Omit<AuditRecord, 'orgId' | 'actor' | 'act'>): Promise<void>;
}

async function teamOf(ctx: TeamCommandContext, teamId: string): Promise<Team> {
  const found = await findOrgTeam(ctx.tx, ctx.org.id, teamId);
  if (!found) throw commandRefusal(404, localized('refusals.teams.notInOrg'));
  return found;
}

const subject = (team: Team) => ({ type: 'team', id: team.id, label: team.name });

export async function createTeamCommand(ctx: TeamCommandContext, name: string): Promise<Team> {
  if ((await listTeams(ctx.tx, ctx.org.id)).some((row) => row.team.name.toLowerCase() === name.toLowerCase())) {
    throw commandRefusal(409, localized('refusals.teams.nameTaken', { name }));
  }
  const created = await createTeam(ctx.tx, { orgId: ctx.org.id, name });
  await ctx.audit({ action: 'team.created', subject: subject(created) });
  return created;
}

export async function addTeamMemberCommand(ctx: TeamCommandContext, teamId: string, userId: string): Promise<{ team: Team; email?: string }> {
  const team = await teamOf(ctx, teamId);
  if (!(await findMembershipRole(ctx.tx, ctx.org.id, userId))) throw commandRefusal(400, localized('refusals.teams.membersOnly'));
  const user = await findUserById(ctx.tx, userId);
  await addTeamMember(ctx.tx, team.id, userId);
  await ctx.audit({ action: 'team.member_added', subject: subject(team), details: { userId, email: user?.email } });
  await announcePermissionChange(ctx.tx, { orgId: ctx.org.id, userIds: [userId] });
  return { team, email: user?.email };
}

export async function removeTeamMemberCommand(ctx: TeamCommandContext, teamId: string, userId: string): Promise<{ team: Team; email?: string }> {
  const team = await teamOf(ctx, teamId);
  const user = await findUserById(ctx.tx, userId);
  await removeTeamMember(ctx.tx, team.id, userId);
  // They may have been the last who answered for an agent their team sponsors (its owner gone): it stops.
  await suspendAgentsNobodyAnswersFor(ctx.tx, team.orgId);
  await ctx.audit({ action: 'team.member_removed', subject: subject(team), details: { userId, email: user?.email } });
  await announcePermissionChange(ctx.tx, { orgId: ctx.org.id, userIds: [userId] });
  return { team, email: user?.email };
}

export async function grantTeamScopeCommand(ctx: TeamCommandContext, input: { teamId: string; appId: string; scope: string }) {
  const team = await teamOf(ctx, input.teamId);
  const found = await findGrantableApp(ctx.tx, ctx.org.id, input.appId);
  if (!found) throw commandRefusal(404, localized('refusals.appNotInOrg'));
  const app = { app: found };
  await refuseUnlessOffered(ctx.tx, app.app, input.scope);
  await grantTeamScope(ctx.tx, { teamId: team.id, appId: app.app.id, scope: input.scope });
  await ctx.audit({ action: 'team.scope_granted', subject: subject(team), appId: app.app.id, details: { scope: input.scope } });
  await announcePermissionChange(ctx.tx, { orgId: ctx.org.id, userIds: await teamMemberIds(ctx.tx, team.id), appId: app.app.id });
  return { team, app };
}

export async function revokeTeamScopeCommand(ctx: TeamCommandContext, input: { teamId: string; appId: string; scope: string }) {
  const team = await teamOf(ctx, input.teamId);
  await revokeTeamScope(ctx.tx, { teamId: team.id, appId: input.appId, scope: input.scope });
  await ctx.audit({ action: 'team.scope_revoked', subject: subject(team), appId: input.appId, details: { scope: input.scope } });
  await announcePermissionChange(ctx.tx, { orgId: ctx.org.id, userIds: await teamMemberIds(ctx.tx, team.id), appId: input.appId });
  return { team };
}
