// Organizations and memberships.
import { eq, like } from 'drizzle-orm';
import { recordAuditEvent } from '../audit/events';
import type { Queryable } from '../db/client';
import { memberships, organizations } from '../db/schema';
import { endOrganizationGrants } from '../grants';
import { hitRateLimit } from '../rate-limit/fixed-window';
import { localized } from '../i18n/catalogs';
import { freeSlug } from '../util/slug';
import { isUuid } from '../util/uuid';
import { organizationRefusal } from './refusal-codes';

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

/** An organization's default language (lib/i18n/negotiate.ts): one of the catalogs, or null for the browser's. */
export async function setDefaultLocale(db: Queryable, orgId: string, locale: string | null): Promise<void> {
  await db.update(organizations).set({ defaultLocale: locale }).where(eq(organizations.id, orgId));
}

/** An organization's time zone for the mail of people who chose none (lib/i18n/time-zone.ts); null: UTC. */
export async function setDefaultTimeZone(db: Queryable, orgId: string, zone: string | null): Promise<void> {
  await db.update(organizations).set({ defaultTimeZone: zone }).where(eq(organizations.id, orgId));
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

/** Slugs the console's own pages use (/console/<slug> would never reach the organization). */
export const RESERVED_ORG_SLUGS: ReadonlySet<string> = new Set(['account', 'confirm', 'login', 'session', 'orgs', 'new', 'api', 'inbox', 'gateway']);

/** At most this many organizations a person creates per day from the console (abuse bound; the CLI has no limit). */
export const ORG_CREATION_LIMIT = { name: 'org_create:person', limit: 10, windowSeconds: 24 * 3600 } as const;

/**
 * A person creates an organization and becomes its owner: the organization, the membership and the audit event in
 * the caller's transaction. The slug is the one given (checked) and is kept for good; a taken slug is refused with the
 * next free one suggested, never silently changed.
 */
export async function createOwnedOrganization(
  db: Queryable,
  input: { name: string; slug: string; owner: { id: string; email: string }; ip: string },
): Promise<Organization> {
  const name = input.name.trim();
  if (name.length === 0) throw organizationRefusal(localized('refusals.organization.nameMissing'), 'name');
  if (name.length > 80) throw organizationRefusal(localized('refusals.organization.nameTooLong'), 'name');
  if (!/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/.test(input.slug)) {
    throw organizationRefusal(localized('refusals.organization.slugInvalid'), 'slug');
  }
  if (RESERVED_ORG_SLUGS.has(input.slug)) throw organizationRefusal(localized('refusals.organization.slugReserved', { slug: input.slug }), 'slug');
  const limited = await hitRateLimit(db, ORG_CREATION_LIMIT, input.owner.id);
  if (limited.limited) throw organizationRefusal(localized('refusals.organization.rateLimited'));
  const [org] = await db.insert(organizations).values({ slug: input.slug, name }).onConflictDoNothing().returning();
  if (!org) {
    const taken = new Set((await db.select({ slug: organizations.slug }).from(organizations).where(like(organizations.slug, `${input.slug.slice(0, 60)}%`))).map((row) => row.slug));
    throw organizationRefusal(localized('refusals.organization.slugTaken', { slug: input.slug, free: freeSlug(input.slug, (candidate) => taken.has(candidate)) }), 'slug');
  }
  await db.insert(memberships).values({ orgId: org.id, userId: input.owner.id, role: 'owner' });
  await recordAuditEvent(db, {
    orgId: org.id,
    actor: { type: 'person', id: input.owner.id, label: input.owner.email, ip: input.ip },
    action: 'org.created',
    subject: { type: 'organization', id: org.id, label: org.name },
    details: { slug: org.slug },
  });
  return org;
}

/** Renames the organization (its slug stays). */
export async function renameOrganization(db: Queryable, orgId: string, name: string): Promise<void> {
  await db.update(organizations).set({ name }).where(eq(organizations.id, orgId));
}
