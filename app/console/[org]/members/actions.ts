'use server';
import { z } from 'zod';
import { InvitationRefusal, invitationUrl, inviteToOrganization, resendInvitation, revokeInvitation } from '@/lib/accounts/invitations';
import { addMember, countOwners, findMembershipRole, lockOrganization, removeMember } from '@/lib/accounts/memberships';
import { issuePasswordResetMail } from '@/lib/accounts/password-reset';
import { findUserById } from '@/lib/accounts/users';
import { invitationMail } from '@/lib/mail/messages';
import { runtime } from '@/lib/runtime';
import type { OrgAccess } from '../../_lib/access';
import { ActionRefusal, orgAction } from '../../_lib/action';

const role = z.enum(['owner', 'admin', 'member'], { error: 'must be owner, admin or member' });
const userId = z.string().uuid('is not a person');

/** The invitation mail, in the organization's name, signed by the admin who sent it. */
function invitationMailFrom(access: OrgAccess, to: string, token: string) {
  const { env } = runtime();
  return invitationMail({
    to,
    organization: access.org.brandDisplayName ?? access.org.name,
    inviter: access.user.name,
    link: invitationUrl(env.PORTICO_ISSUER, token),
    expiresInDays: env.PORTICO_INVITATION_DAYS,
  });
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
  async ({ tx, input, access, audit, queueMail }) => {
    if (input.role === 'owner' && !access.can('ownership.transfer')) throw new ActionRefusal('Only an owner can invite someone as an owner.');
    const { env } = runtime();
    const outcome = await inviteToOrganization(tx, {
      orgId: access.org.id,
      email: input.email,
      role: input.role,
      teamIds: input.teamIds,
      invitedBy: access.user.id,
      ttlDays: env.PORTICO_INVITATION_DAYS,
    }).catch((error: unknown) => {
      throw error instanceof InvitationRefusal ? new ActionRefusal(error.message) : error;
    });
    await queueMail(invitationMailFrom(access, outcome.invitation.email, outcome.token));
    await audit({
      action: outcome.renewed ? 'invitation.resent' : 'invitation.sent',
      subject: { type: 'invitation', id: outcome.invitation.id, label: outcome.invitation.email },
      details: { role: input.role, teams: outcome.invitation.teamIds.length },
    });
    // The same words whether or not the email has an account: the admin learns nothing about other organizations.
    return { status: 'ok', message: `Invitation sent to ${outcome.invitation.email}. They join as ${input.role} when they accept it; the link works for ${env.PORTICO_INVITATION_DAYS} days.` };
  },
);

const invitationId = z.uuid('is not an invitation');

export const resendInvitationAction = orgAction(
  { permission: 'members.manage', input: z.object({ invitationId }) },
  async ({ tx, input, access, audit, queueMail }) => {
    const { env } = runtime();
    const renewed = await resendInvitation(tx, access.org.id, input.invitationId, env.PORTICO_INVITATION_DAYS).catch((error: unknown) => {
      throw error instanceof InvitationRefusal ? new ActionRefusal(error.message) : error;
    });
    if (!renewed) throw new ActionRefusal('This invitation was accepted or revoked meanwhile.');
    if (renewed.invitation.role === 'owner' && !access.can('ownership.transfer')) throw new ActionRefusal('Only an owner can resend an invitation as an owner.');
    await queueMail(invitationMailFrom(access, renewed.invitation.email, renewed.token));
    await audit({ action: 'invitation.resent', subject: { type: 'invitation', id: renewed.invitation.id, label: renewed.invitation.email } });
    return { status: 'ok', message: `A new link was sent to ${renewed.invitation.email}; the previous one no longer works.` };
  },
);

export const revokeInvitationAction = orgAction(
  { permission: 'members.manage', input: z.object({ invitationId, confirmed: z.literal('yes', { error: 'confirm the revocation' }) }) },
  async ({ tx, input, access, audit }) => {
    const revoked = await revokeInvitation(tx, access.org.id, input.invitationId);
    if (!revoked) throw new ActionRefusal('This invitation was accepted or revoked meanwhile.');
    await audit({ action: 'invitation.revoked', subject: { type: 'invitation', id: revoked.id, label: revoked.email } });
    return { status: 'ok', message: `The invitation to ${revoked.email} was revoked; its link no longer works.` };
  },
);

export const sendPasswordResetAction = orgAction(
  { permission: 'members.manage', input: z.object({ userId, confirmed: z.literal('yes', { error: 'confirm sending the link' }) }) },
  async ({ tx, input, access, audit, queueMail }) => {
    const role = await findMembershipRole(tx, access.org.id, input.userId);
    if (!role) throw new ActionRefusal('This person is not a member.');
    const user = await findUserById(tx, input.userId);
    if (!user || user.disabledAt) throw new ActionRefusal('This account is disabled.');
    // The admin neither sees nor sets a password: the person receives the same link as with "Forgot password".
    await queueMail(
      await issuePasswordResetMail(tx, runtime().env.PORTICO_ISSUER, { user, orgId: access.org.id, organizationName: access.org.brandDisplayName ?? access.org.name, requestedBy: 'administrator' }),
    );
    await audit({ action: 'password.reset_link_sent', subject: { type: 'person', id: user.id, label: user.email } });
    return { status: 'ok', message: `A password reset link was sent to ${user.email}. It works once, for 30 minutes.` };
  },
);

export const changeRoleAction = orgAction(
  { permission: 'members.manage', input: z.object({ userId, role }) },
  async ({ tx, input, access, audit }) => {
    await lockOrganization(tx, access.org.id); // the last-owner rule must hold under concurrent changes
    const current = await findMembershipRole(tx, access.org.id, input.userId);
    if (!current) throw new ActionRefusal('This person is not a member.');
    // Granting or taking away ownership is an ownership transfer: owners only.
    if ((input.role === 'owner' || current === 'owner') && !access.can('ownership.transfer')) {
      throw new ActionRefusal('Only an owner can give or take away the owner role.');
    }
    if (current === 'owner' && input.role !== 'owner' && (await countOwners(tx, access.org.id)) <= 1) {
      throw new ActionRefusal('An organization needs at least one owner: make someone else owner first.');
    }
    const user = await findUserById(tx, input.userId);
    await addMember(tx, { orgId: access.org.id, userId: input.userId, role: input.role });
    await audit({ action: 'member.role_changed', subject: { type: 'person', id: input.userId, label: user?.email }, details: { from: current, to: input.role } });
    return { status: 'ok', message: `Role changed to ${input.role}.` };
  },
);

export const removeMemberAction = orgAction(
  { permission: 'members.manage', input: z.object({ userId, confirmed: z.literal('yes', { error: 'confirm the removal' }) }) },
  async ({ tx, input, access, audit }) => {
    await lockOrganization(tx, access.org.id); // the last-owner rule must hold under concurrent changes
    const current = await findMembershipRole(tx, access.org.id, input.userId);
    if (!current) throw new ActionRefusal('This person is not a member.');
    if (current === 'owner' && !access.can('ownership.transfer')) throw new ActionRefusal('Only an owner can remove an owner.');
    if (current === 'owner' && (await countOwners(tx, access.org.id)) <= 1) throw new ActionRefusal('The last owner cannot be removed.');
    const user = await findUserById(tx, input.userId);
    const result = await removeMember(tx, access.org.id, input.userId);
    await audit({ action: 'member.removed', subject: { type: 'person', id: input.userId, label: user?.email }, details: { role: current, grantsRevoked: result.grantsRevoked, teamsLeft: result.teamsLeft, agentsLeft: result.agentsLeft } });
    return { status: 'ok', message: `Removed ${user?.email ?? 'the member'}. Sign-in to this organization's apps is closed; tokens already issued end within 10 minutes.` };
  },
);
