// Organizations and memberships.
import type { Queryable } from '../db/client';
import { memberships, organizations } from '../db/schema';


export type Organization = typeof organizations.$inferSelect;
export type MembershipRole = (typeof memberships.$inferSelect)['role'];

export async function createOrganization(db: Queryable, input: { slug: string; name: string }): Promise<Organization> {
  const [org] = await db.insert(organizations).values(input).returning();
  if (!org) throw new Error('organization insert returned nothing');
  return org;
}
