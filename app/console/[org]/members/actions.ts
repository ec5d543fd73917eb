'use server';
// The members page's actions: thin callers of the member commands (lib/accounts/member-commands.ts).
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
} from '@/lib/accounts/member-commands';
import { SCOPE_TOKEN } from '@/lib/clients/permission-catalog';
import { permissionChoice } from '../../_lib/permission-choice';
import { runtime } from '@/lib/runtime';
import type { OrgAccess } from '../../_lib/access';
import { orgAction } from '../../_lib/action';

const role = z.enum(['owner', 'admin', 'member'], { error: 'must be owner, admin or member' });
const userId = z.string().uuid('is not a person');
const invitationId = z.uuid('is not an invitation');

type ActionContext = Pick<MemberCommandContext, 'tx' | 'audit' | 'queueMail'> & { access: OrgAccess };

/** The member commands' context for a person acting in the console. */
function members({ tx, audit, queueMail, access }: ActionContext): MemberCommandContext {
  const { env } = runtime();
  return { tx, audit, queueMail, org: access.org, mayTransferOwnership: access.can('ownership.transfer'), inviter: access.user, issuer: env.PORTICO_ISSUER, invitationDays: env.PORTICO_INVITATION_DAYS };
}

export const inviteMemberAction = orgAction(
  {
    permission: 'members.manage',
    input: z.object({
      email: z.email('Enter an email address, such as ada@example.com.').max(320, 'Use at most 320 characters.'),
      role,
      teamIds: z.union([z.string(), z.array(z.string())]).optional().transform((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value])).pipe(z.array(z.uuid('Choose teams from the list.'))),
    }),
  },
  async (ctx) => {
    const invitation = await inviteMemberCommand(members(ctx), ctx.input);
    // The same words whether or not the email has an account: the admin learns nothing about other organizations.
    return { status: 'ok', message: `Invitation sent to ${invitation.email}. They join as ${invitation.role} when they accept it; the link works for ${runtime().env.PORTICO_INVITATION_DAYS} days.` };
  },
);

export const resendInvitationAction = orgAction({ permission: 'members.manage', input: z.object({ invitationId }) }, async (ctx) => {
  const invitation = await resendInvitationCommand(members(ctx), ctx.input.invitationId);
  return { status: 'ok', message: `A new link was sent to ${invitation.email}; the previous one no longer works.` };
});

export const revokeInvitationAction = orgAction(
  { permission: 'members.manage', input: z.object({ invitationId, confirmed: z.literal('yes', { error: 'confirm the revocation' }) }) },
  async (ctx) => {
    const invitation = await revokeInvitationCommand(members(ctx), ctx.input.invitationId);
    return { status: 'ok', message: `The invitation to ${invitation.email} was revoked; its link no longer works.` };
  },
);

export const sendPasswordResetAction = orgAction(
  { permission: 'members.manage', input: z.object({ userId, confirmed: z.literal('yes', { error: 'confirm sending the link' }) }) },
  async (ctx) => {
    const user = await sendPasswordResetCommand(members(ctx), ctx.input.userId);
    return { status: 'ok', message: `A password reset link was sent to ${user.email}. It works once, for 30 minutes.` };
  },
);

export const changeRoleAction = orgAction({ permission: 'members.manage', input: z.object({ userId, role }) }, async (ctx) => {
  await changeMemberRoleCommand(members(ctx), ctx.input.userId, ctx.input.role);
  return { status: 'ok', message: `Role changed to ${ctx.input.role}.` };
});

export const removeMemberAction = orgAction(
  { permission: 'members.manage', input: z.object({ userId, confirmed: z.literal('yes', { error: 'confirm the removal' }) }) },
  async (ctx) => {
    const { user } = await removeMemberCommand(members(ctx), ctx.input.userId);
    return { status: 'ok', message: `Removed ${user?.email ?? 'the member'}. Sign-in to this organization's apps is closed; tokens already issued end within 10 minutes.` };
  },
);

// A member's direct grants, from their page: a permission of an app's catalog (the picker), or its revocation.
export const grantPersonPermissionAction = orgAction(
  { permission: 'members.manage', input: z.object({ userId, permission: permissionChoice }) },
  async ({ tx, input, access, audit }) => {
    await grantPersonPermissionCommand({ tx, org: access.org, audit }, { userId: input.userId, ...input.permission });
    return { status: 'ok', message: `Granted ${input.permission.scope}.` };
  },
);

export const revokePersonPermissionAction = orgAction(
  { permission: 'members.manage', input: z.object({ userId, appId: z.string().uuid(), scope: z.string().regex(SCOPE_TOKEN), confirmed: z.literal('yes', { error: 'confirm the revocation' }) }) },
  async ({ tx, input, access, audit }) => {
    await revokePersonPermissionCommand({ tx, org: access.org, audit }, input);
    return { status: 'ok', message: `Revoked ${input.scope}.` };
  },
);
