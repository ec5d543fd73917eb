// What a person with `members.manage` (or the CLI's local authority) does to an organization's members, once:
// invitations, password reset links, roles, removal. Each is one change and one audit event; the ownership rules
// (only owners make or unmake owners; an organization keeps at least one owner) hold whichever door it came through.
import { announcePermissionChange } from './claims-change';
import { queuePersonEvent, SSF_EVENT_TYPES } from '../ssf/events';
import { and, eq } from 'drizzle-orm';
import type { AuditRecord } from '../audit/events';
import { findGrantableApp } from '../clients/apps';
import { refuseUnlessOffered } from '../clients/permission-catalog';
import { personGrants } from '../db/schema';
import type { Queryable } from '../db/client';
import { mailLocaleFor } from '../i18n/recipient';
import { localized } from '../i18n/catalogs';
import { invitationMail, type MailMessage } from '../mail/messages';
import { invitationUrl, inviteToOrganization, resendInvitation, revokeInvitation, type Invitation } from './invitations';
import { addMember, countOwners, findMembershipRole, lockOrganization, removeMember } from './memberships';
import type { MembershipRole, Organization } from './organizations';
import { issuePasswordResetMail } from '../accounts/password-reset';
import { findUserById, type User } from '../accounts/users';
import { suspendAgentsNobodyAnswersFor } from './agent-lifecycle';
import { commandRefusal } from './refusal-codes';

export interface MemberCommandContext {
  tx: Queryable;
  org: Pick<Organization, 'id' | 'name' | 'brandDisplayName'>;
  /** Whether whoever acts may give or take away ownership (owners; the CLI's local authority). */
  mayTransferOwnership: boolean;
  /** Who signs the invitation mail, when a person sends it. */
  inviter?: Pick<User, 'id' | 'name'>;
  issuer: string;
  invitationDays: number;
  audit(record: Omit<AuditRecord, 'orgId' | 'actor' | 'act'>): Promise<void>;
  /** Queues a mail in the same transaction (sent only if the change commits). */
  queueMail(message: MailMessage): Promise<void>;
  /** The language the person acting sees (the console's page): an invitation's, when nothing else names one. */
  actingLocale?: string;
}

function organizationName(ctx: MemberCommandContext): string {
  return ctx.org.brandDisplayName ?? ctx.org.name;
}

async function mailInvitation(ctx: MemberCommandContext, invitation: Invitation, token: string): Promise<void> {
  const locale = await mailLocaleFor(ctx.tx, { email: invitation.email, orgId: ctx.org.id, actingLocale: ctx.actingLocale });
  return ctx.queueMail(invitationMail({ to: invitation.email, locale, organization: organizationName(ctx), inviter: ctx.inviter?.name, link: invitationUrl(ctx.issuer, token), expiresInDays: ctx.invitationDays }));
}

/** Invites an email (or renews its open invitation). The answer never depends on whether the email has an account. */
export async function inviteMemberCommand(ctx: MemberCommandContext, input: { email: string; role: MembershipRole; teamIds?: readonly string[] }): Promise<Invitation> {
  if (input.role === 'owner' && !ctx.mayTransferOwnership) throw commandRefusal(400, localized('refusals.members.ownerInviteOnly'));
  // An invitation's own refusals (a member already, an unknown team, too many this hour) are conflicts (409).
  const outcome = await inviteToOrganization(ctx.tx, { orgId: ctx.org.id, email: input.email, role: input.role, teamIds: input.teamIds ?? [], invitedBy: ctx.inviter?.id ?? null, ttlDays: ctx.invitationDays });
  await mailInvitation(ctx, outcome.invitation, outcome.token);
  await ctx.audit({
    action: outcome.renewed ? 'invitation.resent' : 'invitation.sent',
    subject: { type: 'invitation', id: outcome.invitation.id, label: outcome.invitation.email },
    details: { role: input.role, teams: outcome.invitation.teamIds.length },
  });
  return outcome.invitation;
}

export async function resendInvitationCommand(ctx: MemberCommandContext, invitationId: string): Promise<Invitation> {
  const renewed = await resendInvitation(ctx.tx, ctx.org.id, invitationId, ctx.invitationDays);
  if (!renewed) throw commandRefusal(409, localized('refusals.members.invitationGone'));
  if (renewed.invitation.role === 'owner' && !ctx.mayTransferOwnership) throw commandRefusal(400, localized('refusals.members.ownerResendOnly'));
  await mailInvitation(ctx, renewed.invitation, renewed.token);
  await ctx.audit({ action: 'invitation.resent', subject: { type: 'invitation', id: renewed.invitation.id, label: renewed.invitation.email } });
  return renewed.invitation;
}

export async function revokeInvitationCommand(ctx: MemberCommandContext, invitationId: string): Promise<Invitation> {
  const revoked = await revokeInvitation(ctx.tx, ctx.org.id, invitationId);
  if (!revoked) throw commandRefusal(409, localized('refusals.members.invitationGone'));
  await ctx.audit({ action: 'invitation.revoked', subject: { type: 'invitation', id: revoked.id, label: revoked.email } });
  return revoked;
}

/** Mails the member the same reset link as "Forgot password?": whoever sends it neither sees nor sets a password. */
export async function sendPasswordResetCommand(ctx: MemberCommandContext, userId: string): Promise<User> {
  if (!(await findMembershipRole(ctx.tx, ctx.org.id, userId))) throw commandRefusal(404, localized('refusals.members.notAMember'));
  const user = await findUserById(ctx.tx, userId);
  if (!user || user.disabledAt) throw commandRefusal(409, localized('refusals.members.accountDisabled'));
  await ctx.queueMail(await issuePasswordResetMail(ctx.tx, ctx.issuer, { user, orgId: ctx.org.id, organizationName: organizationName(ctx), requestedBy: 'administrator' }));
  await ctx.audit({ action: 'password.reset_link_sent', subject: { type: 'person', id: user.id, label: user.email } });
  // RISC credential-compromise: an admin reset says the password may be known to someone else (the organization's
  // apps only; the person's other organizations hear of the new password when it is set).
  await queuePersonEvent(ctx.tx, user.id, SSF_EVENT_TYPES.credentialCompromise, { credential_type: 'password', reason_admin: { en: 'An administrator sent the person a password reset link.' } }, ctx.org.id);
  return user;
}

export async function changeMemberRoleCommand(ctx: MemberCommandContext, userId: string, role: MembershipRole): Promise<{ from: MembershipRole }> {
  await lockOrganization(ctx.tx, ctx.org.id); // the last-owner rule must hold under concurrent changes
  const current = await findMembershipRole(ctx.tx, ctx.org.id, userId);
  if (!current) throw commandRefusal(404, localized('refusals.members.notAMember'));
  // Granting or taking away ownership is an ownership transfer: owners only.
  if ((role === 'owner' || current === 'owner') && !ctx.mayTransferOwnership) throw commandRefusal(400, localized('refusals.members.ownerRoleOnly'));
  if (current === 'owner' && role !== 'owner' && (await countOwners(ctx.tx, ctx.org.id)) <= 1) {
    throw commandRefusal(409, localized('refusals.members.needsOwner'));
  }
  const user = await findUserById(ctx.tx, userId);
  await addMember(ctx.tx, { orgId: ctx.org.id, userId, role });
  await ctx.audit({ action: 'member.role_changed', subject: { type: 'person', id: userId, label: user?.email }, details: { from: current, to: role } });
  return { from: current };
}

/** Ends the membership, the person's grants at the organization's apps, their teams and agent-user rows. */
export async function removeMemberCommand(ctx: Pick<MemberCommandContext, 'tx' | 'org' | 'mayTransferOwnership' | 'audit'>, userId: string) {
  await lockOrganization(ctx.tx, ctx.org.id); // the last-owner rule must hold under concurrent changes
  const current = await findMembershipRole(ctx.tx, ctx.org.id, userId);
  if (!current) throw commandRefusal(404, localized('refusals.members.notAMember'));
  if (current === 'owner' && !ctx.mayTransferOwnership) throw commandRefusal(400, localized('refusals.members.ownerRemoveOnly'));
  if (current === 'owner' && (await countOwners(ctx.tx, ctx.org.id)) <= 1) throw commandRefusal(409, localized('refusals.members.lastOwner'));
  const user = await findUserById(ctx.tx, userId);
  const result = await removeMember(ctx.tx as Parameters<typeof removeMember>[0], ctx.org.id, userId);
  // The agents nobody answers for now (they owned it, or were its sponsor team's last member) stop (lib/organizations/agent-lifecycle.ts).
  const suspended = await suspendAgentsNobodyAnswersFor(ctx.tx, ctx.org.id);
  await ctx.audit({
    action: 'member.removed',
    subject: { type: 'person', id: userId, label: user?.email },
    details: { role: current, grantsRevoked: result.grantsRevoked, teamsLeft: result.teamsLeft, agentsLeft: result.agentsLeft, agentsSuspended: suspended.map((agent) => agent.id) },
  });
  return { user, ...result, agentsSuspended: suspended.length };
}

/** What a direct grant needs of its door: the transaction, the organization, the audit. */
export interface PermissionCommandContext {
  tx: Queryable;
  org: { id: string };
  audit: MemberCommandContext['audit'];
}

/** Grants a permission of the app's catalog to one member directly. Unknown or retired permissions are refused. */
export async function grantPersonPermissionCommand(ctx: PermissionCommandContext, input: { userId: string; appId: string; scope: string }) {
  const { app, user } = await personAndApp(ctx, input);
  await refuseUnlessOffered(ctx.tx, app.app, input.scope);
  await ctx.tx.insert(personGrants).values({ orgId: ctx.org.id, userId: input.userId, appId: app.app.id, scope: input.scope }).onConflictDoNothing();
  await ctx.audit({ action: 'person.scope_granted', subject: { type: 'person', id: user.id, label: user.email }, appId: app.app.id, details: { scope: input.scope } });
  await announcePermissionChange(ctx.tx, { orgId: ctx.org.id, userIds: [user.id], appId: app.app.id });
}

export async function revokePersonPermissionCommand(ctx: PermissionCommandContext, input: { userId: string; appId: string; scope: string }) {
  const { app, user } = await personAndApp(ctx, input);
  const removed = await ctx.tx
    .delete(personGrants)
    .where(and(eq(personGrants.userId, input.userId), eq(personGrants.appId, app.app.id), eq(personGrants.scope, input.scope)))
    .returning({ scope: personGrants.scope });
  if (removed.length === 0) throw commandRefusal(404, localized('refusals.members.noDirectGrant', { email: user.email, scope: input.scope, app: app.app.name }));
  await ctx.audit({ action: 'person.scope_revoked', subject: { type: 'person', id: user.id, label: user.email }, appId: app.app.id, details: { scope: input.scope } });
  await announcePermissionChange(ctx.tx, { orgId: ctx.org.id, userIds: [user.id], appId: app.app.id });
}

async function personAndApp(ctx: Pick<PermissionCommandContext, 'tx' | 'org'>, input: { userId: string; appId: string }) {
  if (!(await findMembershipRole(ctx.tx, ctx.org.id, input.userId))) throw commandRefusal(404, localized('refusals.members.notAMember'));
  const user = await findUserById(ctx.tx, input.userId);
  const found = await findGrantableApp(ctx.tx, ctx.org.id, input.appId);
  if (!user || !found) throw commandRefusal(404, localized('refusals.appNotInOrg'));
  return { user, app: { app: found } };
}
