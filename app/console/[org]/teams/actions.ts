'use server';
// The teams page's actions: thin callers of the team commands (lib/organizations/team-commands.ts).
import { z } from 'zod';
import { permissionChoice } from '../../_lib/permission-choice';
import { addTeamMemberCommand, createTeamCommand, grantTeamScopeCommand, removeTeamMemberCommand, revokeTeamScopeCommand } from '@/lib/organizations/team-commands';
import { SCOPE_TOKEN } from '@/lib/clients/permission-catalog';
import type { Translator } from '@/lib/i18n/catalogs';
import { getT } from '@/app/_lib/i18n/server';
import { orgAction } from '../../_lib/action';

const teamId = (t: Translator) => z.string().uuid(t('console.teams.errors.teamId'));
const scope = (t: Translator) => z.string().trim().regex(SCOPE_TOKEN, t('console.teams.errors.scope'));

export const createTeamAction = orgAction(
  {
    permission: 'teams.manage',
    input: (t) => z.object({ name: z.string().trim().min(1, t('console.teams.errors.nameRequired')).max(60, t('console.teams.errors.nameLength')) }),
  },
  async ({ tx, input, access, audit }) => {
    const created = await createTeamCommand({ tx, org: access.org, audit }, input.name);
    return { status: 'ok', message: (await getT('console.teams.done'))('created', { name: created.name }) };
  },
);

export const addTeamMemberAction = orgAction(
  { permission: 'teams.manage', input: (t) => z.object({ teamId: teamId(t), userId: z.string().uuid(t('console.teams.errors.member')) }) },
  async ({ tx, input, access, audit }) => {
    const { team, email } = await addTeamMemberCommand({ tx, org: access.org, audit }, input.teamId, input.userId);
    return { status: 'ok', message: (await getT('console.teams.done'))('joined', { email: String(email), team: team.name }) };
  },
);

export const removeTeamMemberAction = orgAction(
  { permission: 'teams.manage', input: (t) => z.object({ teamId: teamId(t), userId: z.string().uuid(), confirmed: z.literal('yes', { error: t('console.action.confirm.removal') }) }) },
  async ({ tx, input, access, audit }) => {
    const { team, email } = await removeTeamMemberCommand({ tx, org: access.org, audit }, input.teamId, input.userId);
    return { status: 'ok', message: (await getT('console.teams.done'))('left', { email: String(email), team: team.name }) };
  },
);

export const grantTeamScopeAction = orgAction(
  { permission: 'teams.manage', input: (t) => z.object({ teamId: teamId(t), permission: permissionChoice(t) }) },
  async ({ tx, input, access, audit }) => {
    const { appId, scope: chosen } = input.permission;
    const { team, app } = await grantTeamScopeCommand({ tx, org: access.org, audit }, { teamId: input.teamId, appId, scope: chosen });
    return { status: 'ok', message: (await getT('console.teams.done'))('granted', { team: team.name, scope: chosen, app: app.app.name }) };
  },
);

export const revokeTeamScopeAction = orgAction(
  {
    permission: 'teams.manage',
    input: (t) => z.object({ teamId: teamId(t), appId: z.string().uuid(), scope: scope(t), confirmed: z.literal('yes', { error: t('console.action.confirm.revocation') }) }),
  },
  async ({ tx, input, access, audit }) => {
    await revokeTeamScopeCommand({ tx, org: access.org, audit }, input);
    return { status: 'ok', message: (await getT('console.teams.done'))('revoked', { scope: input.scope }) };
  },
);
