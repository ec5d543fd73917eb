// An organization's verified domains: the internet names it proved it controls, by a DNS TXT record or a file at
// https://<domain>/.well-known/. Only one organization holds a domain (the first to verify it; a unique index
// decides between two at once), and only a verified domain can later be tied to an enterprise connection. Another
// organization's app cannot publish on it (lib/clients/apps.ts assertPublishOriginAvailable).
//
// The commands run once for every door (the console's Settings → Identity, the CLI); the caller authorized
// `identity.manage` through the organization-operation kernel, which gives the transaction and the audit. A check
// has two halves: the network (proveDomain, outside any transaction) and the record (recordDomainCheck, inside).
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { and, asc, count, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import { type OrgOperationContext } from '../organizations/org-operation';
import { postgresErrorCode, type Queryable } from '../db/client';
import { orgDomains } from '../db/schema';
import { deliveryPolicy, outboundRequest, OutboundRefused, type OutboundPolicy } from '../http/outbound';
import { localized } from '../i18n/catalogs';
import { hitRateLimit, type RateLimitRule } from '../rate-limit/fixed-window';
import { isUuid } from '../util/uuid';
import { commandRefusal } from '../organizations/refusal-codes';

export type OrgDomain = typeof orgDomains.$inferSelect;

export const MAX_DOMAINS_PER_ORG = 20;
/** The DNS name of the TXT record: `_portico-challenge.<domain>`. */
export const DNS_RECORD_LABEL = '_portico-challenge';
/** What the TXT record (or the file) holds, followed by the domain's token. */
export const VERIFICATION_PREFIX = 'portico-domain-verification=';
export const WELL_KNOWN_PATH = '/.well-known/portico-domain-verification.txt';
/** Checks an organization may run by hand: each is a DNS lookup and an HTTPS request to somebody's server. */
export const DOMAIN_CHECKS_PER_ORG: RateLimitRule = { name: 'domains:check', limit: 30, windowSeconds: 3600 };
const HTTPS_TIMEOUT_MS = 5_000;
const HTTPS_MAX_BYTES = 4 * 1024;

type Context = Pick<OrgOperationContext, 'tx' | 'audit'> & { orgId: string };

export interface DomainCheckDeps {
  /** TXT records of a name, as node:dns gives them (each record in chunks). */
  resolveTxt(name: string): Promise<string[][]>;
  outbound: OutboundPolicy;
  /** Where `https://<domain>` is reached: the domain itself; tests point it at a local server. */
  httpsOrigin?(domain: string): string;
  /** The clock of the hourly check limit (tests fix it). */
  now?: () => Date;
}

/** node:dns's resolver, on the configured servers (PORTICO_DNS_SERVERS) or the system's. */
export function txtResolver(servers: readonly string[] = []): DomainCheckDeps['resolveTxt'] {
  const resolver = new Resolver({ timeout: 3_000, tries: 2 });
  if (servers.length > 0) resolver.setServers([...servers]);
  return (name) => resolver.resolveTxt(name);
}

/** The checks as configured: PORTICO_DNS_SERVERS, and the outbound guard's loopback switch. */
export function domainCheckDeps(env: { PORTICO_DNS_SERVERS: readonly string[] } & Parameters<typeof deliveryPolicy>[0]): DomainCheckDeps {
  return { resolveTxt: txtResolver(env.PORTICO_DNS_SERVERS), outbound: deliveryPolicy(env) };
}

/**
 * A domain as an admin typed it, or undefined when it is not one: lower case, an internationalized name in its
 * ASCII (xn--) form, no trailing dot, at least two labels of letters, digits and inner hyphens, no IP address.
 */
export function normalizeDomain(raw: string): string | undefined {
  const typed = raw.trim().replace(/\.$/, '');
  if (typed === '' || typed.length > 253 || /[\s/:@?#]/.test(typed) || isIP(typed) !== 0) return undefined;
  const ascii = domainToASCII(typed);
  if (!ascii || ascii.length > 253) return undefined;
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((label) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(label))) return undefined;
  // The last label is a top-level domain: never all digits.
  if (/^[0-9]+$/.test(labels.at(-1)!)) return undefined;
  return ascii;
}

/** What the admin publishes to prove the domain: one TXT record, or one file. */
export function verificationInstructions(domain: Pick<OrgDomain, 'domain' | 'verificationToken'>) {
  const value = `${VERIFICATION_PREFIX}${domain.verificationToken}`;
  return { dnsName: `${DNS_RECORD_LABEL}.${domain.domain}`, dnsValue: value, fileUrl: `https://${domain.domain}${WELL_KNOWN_PATH}`, fileContent: value };
}

/** Why the last check did not verify the domain (stored as JSON, shown in the person's language). */
export interface DomainCheckFailure {
  dns: 'no_record' | 'other_value' | 'lookup_failed';
  https: 'not_found' | 'other_content' | 'not_allowed' | 'unreachable' | 'status';
  status?: number;
}

export function checkFailureOf(domain: Pick<OrgDomain, 'lastCheckError'>): DomainCheckFailure | undefined {
  if (!domain.lastCheckError) return undefined;
  try {
    return JSON.parse(domain.lastCheckError) as DomainCheckFailure;
  } catch {
    return undefined;
  }
}

async function dnsProof(deps: DomainCheckDeps, name: string, expected: string): Promise<true | DomainCheckFailure['dns']> {
  let records: string[][];
  try {
    records = await deps.resolveTxt(name);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return code === 'ENOTFOUND' || code === 'ENODATA' ? 'no_record' : 'lookup_failed';
  }
  // A TXT record may come in several strings of at most 255 bytes: they are one value.
  return records.some((chunks) => chunks.join('').trim() === expected) ? true : records.length === 0 ? 'no_record' : 'other_value';
}

async function httpsProof(deps: DomainCheckDeps, domain: string, expected: string): Promise<true | Pick<DomainCheckFailure, 'https' | 'status'>> {
  const origin = deps.httpsOrigin?.(domain) ?? `https://${domain}`;
  let response: Response;
  try {
    response = await outboundRequest(`${origin}${WELL_KNOWN_PATH}`, { method: 'GET', timeoutMs: HTTPS_TIMEOUT_MS, maxBytes: HTTPS_MAX_BYTES, tooLarge: 'truncate' }, deps.outbound);
  } catch (error) {
    return { https: error instanceof OutboundRefused && error.reason === 'address_not_allowed' ? 'not_allowed' : 'unreachable' };
  }
  if (response.status === 404) return { https: 'not_found' };
  if (response.status !== 200) return { https: 'status', status: response.status };
  return (await response.text()).trim() === expected ? true : { https: 'other_content' };
}

export async function listDomains(db: Queryable, orgId: string): Promise<OrgDomain[]> {
  return db.select().from(orgDomains).where(eq(orgDomains.orgId, orgId)).orderBy(asc(orgDomains.createdAt));
}

async function domainOfOrg(db: Queryable, orgId: string, reference: string): Promise<OrgDomain> {
  // By id (the console) or by name (the CLI).
  const byName = normalizeDomain(reference);
  const [row] = await db
    .select()
    .from(orgDomains)
    .where(and(eq(orgDomains.orgId, orgId), isUuid(reference) ? eq(orgDomains.id, reference) : byName ? eq(orgDomains.domain, byName) : sql`false`))
    .limit(1);
  if (!row) throw commandRefusal(404, localized('refusals.domains.notFound'), 'not_found');
  return row;
}

const about = (domain: OrgDomain) => ({ subject: { type: 'domain', id: domain.id, label: domain.domain } });

/** Adds a domain to prove: refused when it is not a domain, the organization has it or too many, or another holds it. */
export async function addDomain(ctx: Context, raw: string): Promise<OrgDomain> {
  const domain = normalizeDomain(raw);
  if (!domain) throw commandRefusal(400, localized('refusals.domains.invalid'), 'invalid_domain');
  // One at a time per organization: the count and the insert cannot be raced past the limit.
  await ctx.tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`portico:org-domains:${ctx.orgId}`}))`);
  const [{ total } = { total: 0 }] = await ctx.tx.select({ total: count() }).from(orgDomains).where(eq(orgDomains.orgId, ctx.orgId));
  if (total >= MAX_DOMAINS_PER_ORG) throw commandRefusal(409, localized('refusals.domains.tooMany', { max: MAX_DOMAINS_PER_ORG }), 'too_many_domains');
  await refuseHeldElsewhere(ctx.tx, ctx.orgId, domain, 'invalid_domain');
  const [added] = await ctx.tx
    .insert(orgDomains)
    .values({ orgId: ctx.orgId, domain, verificationToken: randomBytes(24).toString('base64url') })
    .onConflictDoNothing()
    .returning();
  if (!added) throw commandRefusal(409, localized('refusals.domains.exists', { domain }), 'invalid_domain');
  await ctx.audit({ action: 'org.domain_added', ...about(added) });
  return added;
}

export type DomainCheck = { verified: true; domain: OrgDomain } | { verified: false; domain: OrgDomain; failure: DomainCheckFailure };

/** What proveDomain found, outside any transaction, for recordDomainCheck to keep. */
export interface DomainProof {
  domainId: string;
  found: 'dns' | 'https' | 'already' | DomainCheckFailure;
}

/**
 * The network half of a check, run outside any transaction (a DNS lookup and an HTTPS request may take seconds and
 * must not hold a database connection): counted against DOMAIN_CHECKS_PER_ORG first — a check that fails later still
 * counts —, then the TXT record is looked for, then the file.
 */
export async function proveDomain(db: Queryable, deps: DomainCheckDeps, orgId: string, reference: string): Promise<DomainProof> {
  const domain = await domainOfOrg(db, orgId, reference);
  if (domain.verifiedAt) return { domainId: domain.id, found: 'already' };
  const limit = await hitRateLimit(db, DOMAIN_CHECKS_PER_ORG, orgId, deps.now?.());
  if (limit.limited) throw commandRefusal(409, localized('refusals.domains.checkLimit', { max: DOMAIN_CHECKS_PER_ORG.limit, minutes: Math.ceil(limit.retryAfterSeconds / 60) }), 'rate_limited');
  const expected = verificationInstructions(domain).dnsValue;
  const dns = await dnsProof(deps, `${DNS_RECORD_LABEL}.${domain.domain}`, expected);
  if (dns === true) return { domainId: domain.id, found: 'dns' };
  const https = await httpsProof(deps, domain.domain, expected);
  return { domainId: domain.id, found: https === true ? 'https' : { dns, ...https } };
}

/** Refused when another organization holds this domain, or one it belongs to (a.acme.example under acme.example). */
async function refuseHeldElsewhere(db: Queryable, orgId: string, domain: string, code: string): Promise<void> {
  const holder = await organizationHoldingHost(db, domain);
  if (holder && holder.orgId !== orgId) throw commandRefusal(409, localized('refusals.domains.taken', { domain: holder.domain }), code);
}

/**
 * The database half of a check, in the caller's transaction, with exactly one audit event: verified now
 * (org.domain_verified; refused when another organization verified it, or a domain it belongs to, first), or checked
 * (org.domain_checked, with what was not found, kept for the admin).
 */
export async function recordDomainCheck(ctx: Context, proof: DomainProof): Promise<DomainCheck> {
  const domain = await domainOfOrg(ctx.tx, ctx.orgId, proof.domainId);
  if (proof.found === 'already' || domain.verifiedAt) {
    await ctx.audit({ action: 'org.domain_checked', ...about(domain), details: { verified: true } });
    return { verified: true, domain };
  }
  if (proof.found === 'dns' || proof.found === 'https') {
    await refuseHeldElsewhere(ctx.tx, ctx.orgId, domain.domain, 'domain_taken');
    let verified: OrgDomain | undefined;
    try {
      [verified] = await ctx.tx
        .update(orgDomains)
        .set({ verifiedAt: sql`now()`, verifiedBy: proof.found, lastCheckedAt: sql`now()`, lastCheckError: null })
        .where(and(eq(orgDomains.id, domain.id), isNull(orgDomains.verifiedAt)))
        .returning();
    } catch (error) {
      // Another organization verified it in the same moment: the unique index let only one through.
      if (postgresErrorCode(error) === '23505') throw commandRefusal(409, localized('refusals.domains.taken', { domain: domain.domain }), 'domain_taken');
      throw error;
    }
    if (!verified) {
      // This organization verified it in the same moment (two checks at once): one event says so.
      const current = await domainOfOrg(ctx.tx, ctx.orgId, domain.id);
      await ctx.audit({ action: 'org.domain_checked', ...about(current), details: { verified: true } });
      return { verified: true, domain: current };
    }
    await ctx.audit({ action: 'org.domain_verified', ...about(verified), details: { method: verified.verifiedBy } });
    return { verified: true, domain: verified };
  }
  const failure = proof.found;
  const [checked] = await ctx.tx
    .update(orgDomains)
    .set({ lastCheckedAt: sql`now()`, lastCheckError: JSON.stringify(failure) })
    .where(eq(orgDomains.id, domain.id))
    .returning();
  await ctx.audit({ action: 'org.domain_checked', ...about(checked!), details: { verified: false, ...failure } });
  return { verified: false, domain: checked!, failure };
}

export async function removeDomain(ctx: Context, reference: string): Promise<OrgDomain> {
  const domain = await domainOfOrg(ctx.tx, ctx.orgId, reference);
  await ctx.tx.delete(orgDomains).where(eq(orgDomains.id, domain.id));
  await ctx.audit({ action: 'org.domain_removed', ...about(domain), details: { wasVerified: domain.verifiedAt !== null } });
  return domain;
}

/** The organization holding a verified domain that is this host or one it belongs to (a.example.com → example.com). */
export async function organizationHoldingHost(db: Queryable, host: string): Promise<{ orgId: string; domain: string } | undefined> {
  const name = normalizeDomain(host);
  if (!name) return undefined;
  const labels = name.split('.');
  const candidates = labels.slice(0, -1).map((_, index) => labels.slice(index).join('.'));
  const [held] = await db
    .select({ orgId: orgDomains.orgId, domain: orgDomains.domain })
    .from(orgDomains)
    .where(and(inArray(orgDomains.domain, candidates), isNotNull(orgDomains.verifiedAt)))
    .orderBy(sql`length(${orgDomains.domain}) desc`)
    .limit(1);
  return held;
}
