'use server';
import { z } from 'zod';
import { findMembershipRole } from '@/lib/accounts/memberships';
import { addTeamMember, createTeam, findOrgTeam, grantTeamScope, listTeams, removeTeamMember, revokeTeamScope } from '@/lib/accounts/teams';
import { findUserById } from '@/lib/accounts/users';
import { findOrgApp } from '@/lib/clients/apps';
import type { Transaction } from '@/lib/db/client';
import { ActionRefusal, orgAction } from '../../_lib/action';

const teamId = z.string().uuid('is not a team');
const scope = z.string().trim().regex(/^[A-Za-z0-9:._-]{1,64}$/, 'must be 1-64 letters, digits or : . _ -');

async function team(tx: Transaction, orgId: string, id: string) {
  const found = await findOrgTeam(tx, orgId, id);
  if (!found) throw new ActionRefusal('This team does not exist in this organization.');
  return found;
}

export const createTeamAction = orgAction(
  { permission: 'teams.manage', input: z.object({ name: z.string().trim().min(1, 'is required').max(60) }) },
  async ({ tx, input, access, audit }) => {
    if ((await listTeams(tx, access.org.id)).some((row) => row.team.name.toLowerCase() === input.name.toLowerCase())) {
      throw new ActionRefusal(`A team named “${input.name}” exists already.`);
    }
    const created = await createTeam(tx, { orgId: access.org.id, name: input.name });
    await audit({ action: 'team.created', subject: { type: 'team', id: created.id, label: created.name } });
    return { status: 'ok', message: `Created team ${created.name}.` };
  },
);

export const addTeamMemberAction = orgAction(
  { permission: 'teams.manage', input: z.object({ teamId, userId: z.string().uuid('choose a member') }) },
  async ({ tx, input, access, audit }) => {
    const found = await team(tx, access.org.id, input.teamId);
    if (!(await findMembershipRole(tx, access.org.id, input.userId))) throw new ActionRefusal('Only members of the organization can join its teams.');
    const user = await findUserById(tx, input.userId);
    await addTeamMember(tx, found.id, input.userId);
    await audit({ action: 'team.member_added', subject: { type: 'team', id: found.id, label: found.name }, details: { userId: input.userId, email: user?.email } });
    return { status: 'ok', message: `${user?.email} joined ${found.name}.` };
  },
);

export const removeTeamMemberAction = orgAction(
  { permission: 'teams.manage', input: z.object({ teamId, userId: z.string().uuid(), confirmed: z.literal('yes', { error: 'confirm the removal' }) }) },
  async ({ tx, input, access, audit }) => {
    const found = await team(tx, access.org.id, input.teamId);
    const user = await findUserById(tx, input.userId);
    await removeTeamMember(tx, found.id, input.userId);
    await audit({ action: 'team.member_removed', subject: { type: 'team', id: found.id, label: found.name }, details: { userId: input.userId, email: user?.email } });
    return { status: 'ok', message: `${user?.email} left ${found.name}.` };
  },
);

export const grantTeamScopeAction = orgAction(
  { permission: 'teams.manage', input: z.object({ teamId, appId: z.string().uuid('choose an app'), scope }) },
  async ({ tx, input, access, audit }) => {
    const found = await team(tx, access.org.id, input.teamId);
    const app = await findOrgApp(tx, access.org.id, input.appId);
    if (!app) throw new ActionRefusal('This app does not exist in this organization.');
    await grantTeamScope(tx, { teamId: found.id, appId: app.app.id, scope: input.scope });
    await audit({ action: 'team.scope_granted', subject: { type: 'team', id: found.id, label: found.name }, appId: app.app.id, details: { scope: input.scope } });
    return { status: 'ok', message: `${found.name} now holds ${input.scope} on ${app.app.name}.` };
  },
);

export const revokeTeamScopeAction = orgAction(
  { permission: 'teams.manage', input: z.object({ teamId, appId: z.string().uuid(), scope, confirmed: z.literal('yes', { error: 'confirm the revocation' }) }) },
  async ({ tx, input, access, audit }) => {
    const found = await team(tx, access.org.id, input.teamId);
    await revokeTeamScope(tx, { teamId: found.id, appId: input.appId, scope: input.scope });
    await audit({ action: 'team.scope_revoked', subject: { type: 'team', id: found.id, label: found.name }, appId: input.appId, details: { scope: input.scope } });
    return { status: 'ok', message: `Revoked ${input.scope}.` };
  },
);
