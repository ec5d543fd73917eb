// An organization's own identity: the internet domains it proved it controls (and, later, its enterprise
// connections and SCIM provisioning). A verified domain is what ties a company's addresses to the organization:
// only one organization holds a domain, and only a verified domain can be tied to a connection.
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, unique, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { membershipRole, organizations, teams, users } from './accounts';

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
    /**
     * The enterprise connection that signs in people with addresses at this domain (home realm discovery), or none.
     * Only a verified domain may have one (lib/identity/connections.ts); a domain that stops being held loses it.
     */
    connectionId: uuid('connection_id').references(() => identityConnections.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check('org_domains_connection_needs_verification', sql`${t.connectionId} IS NULL OR ${t.verifiedAt} IS NOT NULL`),
    unique('org_domains_org_domain_key').on(t.orgId, t.domain),
    // Only one organization holds a domain: whoever verifies it first.
    uniqueIndex('org_domains_verified_domain_key').on(t.domain).where(sql`${t.verifiedAt} IS NOT NULL`),
    index('org_domains_domain_idx').on(t.domain),
  ],
);

/**
 * An organization's enterprise connection: its company identity provider, through OpenID Connect or SAML 2.0.
 * People whose address is at one of the connection's (verified) domains sign in there; the first sign-in creates
 * their account and membership (lib/identity/federation/core.ts).
 */
export const identityConnections = pgTable(
  'identity_connections',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['oidc', 'saml'] }).notNull(),
    name: text('name').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    /** The role of a person whose first sign-in through the connection makes them a member. */
    defaultRole: membershipRole('default_role').notNull().default('member'),
    /** OpenID Connect: the issuer (discovery at <issuer>/.well-known/openid-configuration) and Portico's client there. */
    oidcIssuer: text('oidc_issuer'),
    oidcClientId: text('oidc_client_id'),
    /** The client secret, encrypted with the at-rest key (lib/security/at-rest.ts); never shown again. */
    oidcClientSecretSealed: text('oidc_client_secret_sealed'),
    /** SAML 2.0: the identity provider's entity ID, its single sign-on URL (HTTP-Redirect) and signing certificates (PEM). */
    samlIdpEntityId: text('saml_idp_entity_id'),
    samlSsoUrl: text('saml_sso_url'),
    samlCertificates: text('saml_certificates'),
    /** Which claims (OIDC) or attributes (SAML) hold the address, the name and the groups. */
    emailClaim: text('email_claim').notNull().default('email'),
    nameClaim: text('name_claim').notNull().default('name'),
    groupsClaim: text('groups_claim').notNull().default('groups'),
    /** Group name at the identity provider → the organization's team id: membership follows at each sign-in. */
    groupTeams: jsonb('group_teams').$type<Record<string, string>>().notNull().default({}),
    /**
     * OpenID Connect connections made before each had a redirect URI of its own (migration 0050): until then, or
     * until an admin switches it, sign-ins go out with the old shared callback, which then takes only responses whose
     * `iss` (RFC 9207) is this connection's issuer. Null: the connection's own callback only.
     */
    legacyCallbackUntil: timestamp('legacy_callback_until', { withTimezone: true }),
    /**
     * People at the connection's domains must sign in through it: the password form and password reset refuse them,
     * except the organization's owners, who keep a password as a way back in (lib/identity/sso-required.ts).
     */
    requireSso: boolean('require_sso').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('identity_connections_org_name_key').on(t.orgId, t.name),
    check(
      'identity_connections_kind_fields',
      sql`(${t.kind} = 'oidc' AND ${t.oidcIssuer} IS NOT NULL AND ${t.oidcClientId} IS NOT NULL) OR (${t.kind} = 'saml' AND ${t.samlIdpEntityId} IS NOT NULL AND ${t.samlSsoUrl} IS NOT NULL AND ${t.samlCertificates} IS NOT NULL)`,
    ),
  ],
);

/**
 * Who a person is at a connection's identity provider: `iss` + `sub` (OpenID Connect) or the IdP's entity ID + the
 * persistent NameID (SAML). A sign-in through a connection finds the account by this, never by the address alone.
 */
export const externalIdentities = pgTable(
  'external_identities',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    connectionId: uuid('connection_id')
      .notNull()
      .references(() => identityConnections.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    /**
     * How the link was made: `sign_in` (the first sign-in through the connection made the account), `password` (an
     * existing account proved itself with its password, and its second factor when it has one), `provisioned` (the
     * organization's directory made the account). A password reset by mail ends the `password` ones.
     */
    linkedBy: text('linked_by', { enum: ['sign_in', 'password', 'provisioned'] }).notNull().default('sign_in'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastSignInAt: timestamp('last_sign_in_at', { withTimezone: true }),
  },
  (t) => [
    unique('external_identities_subject_key').on(t.connectionId, t.issuer, t.subject),
    unique('external_identities_connection_user_key').on(t.connectionId, t.userId),
    index('external_identities_user_idx').on(t.userId),
  ],
);

/**
 * A sign-in through a connection, from the redirect to the identity provider until it ends: found by the SHA-256 of
 * the secret the browser holds in a cookie, or by the SHA-256 of its `state` (OpenID Connect) / RelayState (SAML),
 * a second random value that only names the sign-in and never proves the browser. Where the sign-in continues is
 * stored here, never taken from the request. `stage`: started (at the IdP), asserted (a SAML Response waits for its
 * browser), linking (an existing account must prove itself before it is linked), done (an app's sign-in card
 * finishes it under its own path).
 */
export const federatedSignIns = pgTable(
  'federated_sign_ins',
  {
    tokenHash: text('token_hash').primaryKey(),
    stateHash: text('state_hash').unique('federated_sign_ins_state_hash_key'),
    connectionId: uuid('connection_id')
      .notNull()
      .references(() => identityConnections.id, { onDelete: 'cascade' }),
    stage: text('stage', { enum: ['started', 'asserted', 'linking', 'done'] }).notNull().default('started'),
    continuation: jsonb('continuation').notNull(),
    /** SAML: the AuthnRequest's ID, which the Response must answer (InResponseTo). */
    requestId: text('request_id'),
    /** linking / done: the account, and what the identity provider said (subject, claims, amr). */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    assertion: jsonb('assertion'),
    attempts: integer('attempts').notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('federated_sign_ins_expires_idx').on(t.expiresAt)],
);

/** SAML assertion IDs already accepted, kept until the assertion could no longer be valid: a replay is refused. */
export const samlAssertionIds = pgTable(
  'saml_assertion_ids',
  {
    connectionId: uuid('connection_id')
      .notNull()
      .references(() => identityConnections.id, { onDelete: 'cascade' }),
    assertionId: text('assertion_id').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.connectionId, t.assertionId] }), index('saml_assertion_ids_expires_idx').on(t.expiresAt)],
);

/** An organization's SCIM 2.0 bearer token (RFC 7644 §2): its SHA-256 only; shown once when made. */
export const scimTokens = pgTable(
  'scim_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('scim_tokens_org_key').on(t.orgId), uniqueIndex('scim_tokens_hash_key').on(t.tokenHash)],
);

/**
 * A person as the organization's directory provisioned them (RFC 7643 User): kept after a deactivation (active =
 * false, the membership gone), so the directory still finds and may reactivate them.
 */
export const scimUsers = pgTable(
  'scim_users',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    userName: text('user_name').notNull(),
    externalId: text('external_id'),
    active: boolean('active').notNull().default(true),
    /** The account was made by provisioning and has been linked to no identity provider yet (first-sign-in linking). */
    createdByProvisioning: boolean('created_by_provisioning').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.userId] }), uniqueIndex('scim_users_org_user_name_key').on(t.orgId, sql`lower(${t.userName})`)],
);

/** A team as the organization's directory provisioned it (RFC 7643 Group). */
export const scimGroups = pgTable(
  'scim_groups',
  {
    teamId: uuid('team_id')
      .primaryKey()
      .references(() => teams.id, { onDelete: 'cascade' }),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    externalId: text('external_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
);
