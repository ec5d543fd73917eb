'use server';
// The teams page's actions: thin callers of the team commands (lib/accounts/team-commands.ts).
import { z } from 'zod';
import { permissionChoice } from '../../_lib/permission-choice';
import { addTeamMemberCommand, createTeamCommand, grantTeamScopeCommand, removeTeamMemberCommand, revokeTeamScopeCommand } from '@/lib/accounts/team-commands';
import { SCOPE_TOKEN } from '@/lib/clients/permission-catalog';
import { orgAction } from '../../_lib/action';

const teamId = z.string().uuid('is not a team');
const scope = z.string().trim().regex(SCOPE_TOKEN, 'must be 1-64 letters, digits or : . _ -');

export const createTeamAction = orgAction(
  { permission: 'teams.manage', input: z.object({ name: z.string().trim().min(1, 'is required').max(60) }) },
  async ({ tx, input, access, audit }) => {
    const created = await createTeamCommand({ tx, org: access.org, audit }, input.name);
    return { status: 'ok', message: `Created team ${created.name}.` };
  },
);

export const addTeamMemberAction = orgAction(
  { permission: 'teams.manage', input: z.object({ teamId, userId: z.string().uuid('choose a member') }) },
  async ({ tx, input, access, audit }) => {
    const { team, email } = await addTeamMemberCommand({ tx, org: access.org, audit }, input.teamId, input.userId);
    return { status: 'ok', message: `${email} joined ${team.name}.` };
  },
);

export const removeTeamMemberAction = orgAction(
  { permission: 'teams.manage', input: z.object({ teamId, userId: z.string().uuid(), confirmed: z.literal('yes', { error: 'confirm the removal' }) }) },
  async ({ tx, input, access, audit }) => {
    const { team, email } = await removeTeamMemberCommand({ tx, org: access.org, audit }, input.teamId, input.userId);
    return { status: 'ok', message: `${email} left ${team.name}.` };
  },
);

export const grantTeamScopeAction = orgAction(
  { permission: 'teams.manage', input: z.object({ teamId, permission: permissionChoice }) },
  async ({ tx, input, access, audit }) => {
    const { appId, scope: chosen } = input.permission;
    const { team, app } = await grantTeamScopeCommand({ tx, org: access.org, audit }, { teamId: input.teamId, appId, scope: chosen });
    return { status: 'ok', message: `${team.name} now holds ${chosen} on ${app.app.name}.` };
  },
);

export const revokeTeamScopeAction = orgAction(
  { permission: 'teams.manage', input: z.object({ teamId, appId: z.string().uuid(), scope, confirmed: z.literal('yes', { error: 'confirm the revocation' }) }) },
  async ({ tx, input, access, audit }) => {
    await revokeTeamScopeCommand({ tx, org: access.org, audit }, input);
    return { status: 'ok', message: `Revoked ${input.scope}.` };
  },
);
