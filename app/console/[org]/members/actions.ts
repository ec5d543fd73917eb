'use server';
// The members page's actions: thin callers of the member commands (lib/organizations/member-commands.ts).
import { z } from 'zod';
import {
  changeMemberRoleCommand,
  inviteMemberCommand,
  removeMemberCommand,
  resendInvitationCommand,
  revokeInvitationCommand,
  sendPasswordResetCommand,
  grantPersonPermissionCommand,
  revokePersonPermissionCommand,
  type MemberCommandContext,
} from '@/lib/organizations/member-commands';
import { SCOPE_TOKEN } from '@/lib/clients/permission-catalog';
import { permissionChoice } from '../../_lib/permission-choice';
import { runtime } from '@/lib/runtime';
import type { OrgAccess } from '../../_lib/access';
import { orgAction } from '../../_lib/action';
import type { Translator } from '@/lib/i18n/catalogs';
import { getT } from '@/app/_lib/i18n/server';
import { requestLocale } from '@/app/_lib/i18n/request-locale';

const role = (t: Translator) => z.enum(['owner', 'admin', 'member'], { error: t('console.members.errors.role') });
const userId = (t: Translator) => z.string().uuid(t('console.members.errors.userId'));
const invitationId = (t: Translator) => z.uuid(t('console.members.errors.invitationId'));

type ActionContext = Pick<MemberCommandContext, 'tx' | 'audit' | 'queueMail'> & { access: OrgAccess };

/** The member commands' context for a person acting in the console. */
async function members({ tx, audit, queueMail, access }: ActionContext): Promise<MemberCommandContext> {
  const { env } = runtime();
  return {
    tx,
    audit,
    queueMail,
    org: access.org,
    mayTransferOwnership: access.can('ownership.transfer'),
    inviter: access.user,
    issuer: env.PORTICO_ISSUER,
    invitationDays: env.PORTICO_INVITATION_DAYS,
    // The language the admin sees this page in: an invitation's when the organization's default is the browser's.
    actingLocale: await requestLocale(),
  };
}

export const inviteMemberAction = orgAction(
  {
    permission: 'members.manage',
    input: (t) =>
      z.object({
        email: z.email(t('console.members.errors.email')).max(320, t('console.members.errors.emailLength')),
        role: role(t),
        teamIds: z
          .union([z.string(), z.array(z.string())])
          .optional()
          .transform((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]))
          .pipe(z.array(z.uuid(t('console.members.errors.teams')))),
      }),
  },
  async (ctx) => {
    const invitation = await inviteMemberCommand(await members(ctx), ctx.input);
    // The same words whether or not the email has an account: the admin learns nothing about other organizations.
    const t = await getT('console.members.done');
    return { status: 'ok', message: t('invited', { email: invitation.email, role: invitation.role, days: runtime().env.PORTICO_INVITATION_DAYS }) };
  },
);

export const resendInvitationAction = orgAction({ permission: 'members.manage', input: (t) => z.object({ invitationId: invitationId(t) }) }, async (ctx) => {
  const invitation = await resendInvitationCommand(await members(ctx), ctx.input.invitationId);
  return { status: 'ok', message: (await getT('console.members.done'))('resent', { email: invitation.email }) };
});

export const revokeInvitationAction = orgAction(
  { permission: 'members.manage', input: (t) => z.object({ invitationId: invitationId(t), confirmed: z.literal('yes', { error: t('console.action.confirm.revocation') }) }) },
  async (ctx) => {
    const invitation = await revokeInvitationCommand(await members(ctx), ctx.input.invitationId);
    return { status: 'ok', message: (await getT('console.members.done'))('invitationRevoked', { email: invitation.email }) };
  },
);

export const sendPasswordResetAction = orgAction(
  { permission: 'members.manage', input: (t) => z.object({ userId: userId(t), confirmed: z.literal('yes', { error: t('console.action.confirm.sendLink') }) }) },
  async (ctx) => {
    const user = await sendPasswordResetCommand(await members(ctx), ctx.input.userId);
    return { status: 'ok', message: (await getT('console.members.done'))('resetSent', { email: user.email }) };
  },
);

export const changeRoleAction = orgAction({ permission: 'members.manage', input: (t) => z.object({ userId: userId(t), role: role(t) }) }, async (ctx) => {
  await changeMemberRoleCommand(await members(ctx), ctx.input.userId, ctx.input.role);
  return { status: 'ok', message: (await getT('console.members.done'))('roleChanged', { role: ctx.input.role }) };
});

export const removeMemberAction = orgAction(
  { permission: 'members.manage', input: (t) => z.object({ userId: userId(t), confirmed: z.literal('yes', { error: t('console.action.confirm.removal') }) }) },
  async (ctx) => {
    const { user } = await removeMemberCommand(await members(ctx), ctx.input.userId);
    const t = await getT('console.members.done');
    // From the member's page, which no longer exists once they are gone: back to the list, which says it was done
    // (only that: the query string names no one the page repeats).
    return { status: 'ok', message: user ? t('removed', { email: user.email }) : t('removedUnknown'), redirect: `/console/${ctx.access.org.slug}/members?removed=1` };
  },
);

// A member's direct grants, from their page: a permission of an app's catalog (the picker), or its revocation.
export const grantPersonPermissionAction = orgAction(
  { permission: 'members.manage', input: (t) => z.object({ userId: userId(t), permission: permissionChoice(t) }) },
  async ({ tx, input, access, audit }) => {
    await grantPersonPermissionCommand({ tx, org: access.org, audit }, { userId: input.userId, ...input.permission });
    return { status: 'ok', message: (await getT('console.members.done'))('granted', { scope: input.permission.scope }) };
  },
);

export const revokePersonPermissionAction = orgAction(
  {
    permission: 'members.manage',
    input: (t) => z.object({ userId: userId(t), appId: z.string().uuid(), scope: z.string().regex(SCOPE_TOKEN), confirmed: z.literal('yes', { error: t('console.action.confirm.revocation') }) }),
  },
  async ({ tx, input, access, audit }) => {
    await revokePersonPermissionCommand({ tx, org: access.org, audit }, input);
    return { status: 'ok', message: (await getT('console.members.done'))('revoked', { scope: input.scope }) };
  },
);
