// What each organization role may do in the console and the API. The one table every check reads.
import type { MembershipRole } from './organizations';

export const PERMISSIONS = [
  'org.read',
  'apps.read',
  'apps.manage',
  'members.read',
  'members.manage',
  'teams.manage',
  'clients.manage',
  'agents.manage',
  'branding.manage',
  // The organization's sign-in security (who must have a second factor): owners only, since it can also be weakened.
  'security.manage',
  'audit.read',
  // The organization's webhooks: what leaves Portico about it, and where to. Owners and admins (who read the audit).
  'webhooks.manage',
  // The organization's own identity: its verified domains (and, with them, who may sign in through its company's
  // identity provider). Owners only: a domain or a connection decides whose accounts belong here.
  'identity.manage',
  // Deciding approval requests and revoking their grants: the organization's operators, its owners.
  'approvals.decide',
  // Who decides which requests, with what quorum and escalation (approval policies): owners only, since a policy
  // can also make approvals easier.
  'approvals.policy',
  'ownership.transfer',
  // The organization's name (its slug never changes: links and tokens name it).
  'org.rename',
  'org.delete',
] as const;
export type OrgPermission = (typeof PERMISSIONS)[number];

/** What only an owner may do: everything else an admin may do too. */
const OWNER_ONLY: readonly OrgPermission[] = ['ownership.transfer', 'org.rename', 'org.delete', 'approvals.decide', 'approvals.policy', 'security.manage', 'identity.manage'];
const ADMIN = PERMISSIONS.filter((permission) => !OWNER_ONLY.includes(permission));

const ROLE_PERMISSIONS: Record<MembershipRole, ReadonlySet<OrgPermission>> = {
  // Everything.
  owner: new Set(PERMISSIONS),
  // Everything but what is the owners' alone (OWNER_ONLY).
  admin: new Set(ADMIN),
  // Reads what concerns them: the organization, its apps, who belongs to it.
  member: new Set<OrgPermission>(['org.read', 'apps.read', 'members.read']),
};

export function can(role: MembershipRole | undefined, permission: OrgPermission): boolean {
  return role !== undefined && ROLE_PERMISSIONS[role].has(permission);
}
