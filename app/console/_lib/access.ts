// The one place where console reads and actions are authorized: signed-in person → organization → role.
import 'server-only';
import { notFound } from 'next/navigation';
import { listMembershipsOf } from '@/lib/organizations/memberships';
import type { MembershipRole, Organization } from '@/lib/organizations/organizations';
import { membershipRoleOfRequest, organizationOfRequest } from '@/app/_lib/request-reads';
import { can, type OrgPermission } from '@/lib/organizations/permissions';
import type { ConsoleSession } from '@/lib/accounts/console-sessions';
import type { User } from '@/lib/accounts/users';
import { db } from '@/lib/runtime';
import { getT } from '@/app/_lib/i18n/server';
import { currentConsoleSession, requireConsoleSession } from './session';

export interface OrgAccess {
  user: User;
  org: Organization;
  role: MembershipRole;
  /** The console session's token hash (never the token): what values sealed for this session are bound to. */
  consoleSession: string;
  can(permission: OrgPermission): boolean;
}

async function accessFor(session: ConsoleSession, orgSlug: unknown): Promise<OrgAccess | undefined> {
  const { user } = session;
  if (typeof orgSlug !== 'string') return undefined;
  const org = await organizationOfRequest(orgSlug);
  if (!org) return undefined;
  const role = await membershipRoleOfRequest(org.id, user.id);
  if (!role) return undefined;
  return { user, org, role, consoleSession: session.tokenHash, can: (permission) => can(role, permission) };
}

/**
 * For pages: the person's access to the organization in the URL. Not signed in → the login page; not a member →
 * 404 (an organization one does not belong to is not revealed).
 */
export async function requireOrgAccess(orgSlug: string): Promise<OrgAccess> {
  const session = await requireConsoleSession();
  const access = await accessFor(session, orgSlug);
  if (!access) notFound();
  return access;
}

/** For actions: the same check, answering instead of redirecting. */
export async function authorizeOrgAction(orgSlug: unknown, permission: OrgPermission): Promise<{ ok: true; access: OrgAccess } | { ok: false; error: string }> {
  const session = await currentConsoleSession();
  const t = await getT('console.access');
  if (!session) return { ok: false, error: t('sessionEnded') };
  const access = await accessFor(session, orgSlug);
  if (!access || !access.can(permission)) return { ok: false, error: t('forbidden') };
  return { ok: true, access };
}

export async function membershipsForSwitcher(user: User) {
  return listMembershipsOf(db(), user.id);
}
