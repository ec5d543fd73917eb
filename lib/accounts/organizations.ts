// Organizations and memberships.
import { eq } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { memberships, organizations } from '../db/schema';
import { endOrganizationGrants } from '../grants';
import { isUuid } from '../util/uuid';


export type Organization = typeof organizations.$inferSelect;
export type MembershipRole = (typeof memberships.$inferSelect)['role'];

export async function createOrganization(db: Queryable, input: { slug: string; name: string }): Promise<Organization> {
  const [org] = await db.insert(organizations).values(input).returning();
  if (!org) throw new Error('organization insert returned nothing');
  return org;
}

export async function findOrganizationBySlug(db: Queryable, slug: string): Promise<Organization | undefined> {
  const [org] = await db.select().from(organizations).where(eq(organizations.slug, slug)).limit(1);
  return org;
}

export async function findOrganizationById(db: Queryable, id: string): Promise<Organization | undefined> {
  if (!isUuid(id)) return undefined;
  const [org] = await db.select().from(organizations).where(eq(organizations.id, id)).limit(1);
  return org;
}

export async function listOrganizations(db: Queryable): Promise<Organization[]> {
  return db.select().from(organizations).orderBy(organizations.slug);
}

export interface Branding {
  displayName: string | null;
  logoUrl: string | null;
  primaryColor: string | null;
  backgroundColor: string | null;
}

export async function setBranding(db: Queryable, orgId: string, branding: Branding): Promise<void> {
  await db
    .update(organizations)
    .set({
      brandDisplayName: branding.displayName,
      brandLogoUrl: branding.logoUrl,
      brandPrimaryColor: branding.primaryColor,
      brandBackgroundColor: branding.backgroundColor,
    })
    .where(eq(organizations.id, orgId));
}

/**
 * Deletes the organization with its apps, clients, memberships and teams (foreign keys cascade), after ending
 * every grant and token of its clients. Its audit events stay: the trail outlives what it describes.
 */
export async function deleteOrganization(db: Queryable, orgId: string): Promise<void> {
  await endOrganizationGrants(db, orgId);
  await db.delete(organizations).where(eq(organizations.id, orgId));
}
