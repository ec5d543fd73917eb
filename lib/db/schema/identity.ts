// An organization's own identity: the internet domains it proved it controls (and, later, its enterprise
// connections and SCIM provisioning). A verified domain is what ties a company's addresses to the organization:
// only one organization holds a domain, and only a verified domain can be tied to a connection.
import { sql } from 'drizzle-orm';
import { index, pgTable, text, timestamp, unique, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { organizations } from './accounts';

export const orgDomains = pgTable(
  'org_domains',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** Lower case, ASCII (an internationalized name in its xn-- form), without a trailing dot. */
    domain: text('domain').notNull(),
    /** What the DNS TXT record or the well-known file must hold; public by design (it is published), so stored as is. */
    verificationToken: text('verification_token').notNull(),
    verifiedAt: timestamp('verified_at', { withTimezone: true }),
    /** How the last check proved it ('dns' or 'https'), or why it could not (shown to the admin). */
    verifiedBy: text('verified_by', { enum: ['dns', 'https'] }),
    lastCheckedAt: timestamp('last_checked_at', { withTimezone: true }),
    lastCheckError: text('last_check_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('org_domains_org_domain_key').on(t.orgId, t.domain),
    // Only one organization holds a domain: whoever verifies it first.
    uniqueIndex('org_domains_verified_domain_key').on(t.domain).where(sql`${t.verifiedAt} IS NOT NULL`),
    index('org_domains_domain_idx').on(t.domain),
  ],
);
