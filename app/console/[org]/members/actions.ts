'use server';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { addMember, countOwners, findMembershipRole, lockOrganization, removeMember } from '@/lib/accounts/memberships';
import { hashPassword } from '@/lib/accounts/passwords';
import { createUser, findUserByEmail, findUserById } from '@/lib/accounts/users';
import { ActionRefusal, orgAction } from '../../_lib/action';

const role = z.enum(['owner', 'admin', 'member'], { error: 'must be owner, admin or member' });
const userId = z.string().uuid('is not a person');

export const addMemberAction = orgAction(
  {
    permission: 'members.manage',
    input: z.object({ email: z.email('must be an email address').max(320), name: z.string().trim().max(80).optional(), role }),
  },
  async ({ tx, input, access, audit }) => {
    if (input.role === 'owner' && !access.can('ownership.transfer')) throw new ActionRefusal('Only an owner can make someone an owner.');
    let user = await findUserByEmail(tx, input.email);
    let password: string | undefined;
    if (!user) {
      password = randomBytes(12).toString('base64url');
      user = await createUser(tx, { email: input.email, name: input.name || input.email.split('@')[0]!, passwordHash: await hashPassword(password) });
    }
    if (await findMembershipRole(tx, access.org.id, user.id)) throw new ActionRefusal(`${user.email} is a member already.`);
    await addMember(tx, { orgId: access.org.id, userId: user.id, role: input.role });
    await audit({ action: 'member.added', subject: { type: 'person', id: user.id, label: user.email }, details: { role: input.role, accountCreated: password !== undefined } });
    return password
      ? { status: 'ok', message: `Added ${user.email} as ${input.role}. A new account was created; give them this password (shown only now):`, secret: [password] }
      : { status: 'ok', message: `Added ${user.email} as ${input.role}.` };
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
    await audit({ action: 'member.removed', subject: { type: 'person', id: input.userId, label: user?.email }, details: { role: current, grantsRevoked: result.grantsRevoked } });
    return { status: 'ok', message: `Removed ${user?.email ?? 'the member'}. Sign-in to this organization's apps is closed; tokens already issued end within 10 minutes.` };
  },
);
