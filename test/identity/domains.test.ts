// Verified domains: an organization proves a domain by a TXT record, served here by a real DNS server on loopback,
// or by a file at https://<domain>/.well-known/, served by a real HTTPS server; only one organization holds a domain,
// even when two verify it at the same moment; another organization's app cannot publish on it; checks are limited.
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createOrganization, type Organization } from '../../lib/organizations/organizations';
import { runOrgOperation } from '../../lib/organizations/org-operation';
import { Refusal as CommandRefusal } from '../../lib/refusals/refusal';
import { createUser, type User } from '../../lib/accounts/users';
import { recordAuditEvent, type AuditRecord } from '../../lib/audit/events';
import { assertPublishOriginAvailable, PublishOriginTaken } from '../../lib/clients/apps';
import type { Queryable } from '../../lib/db/client';
import { auditEvents, orgDomains } from '../../lib/db/schema';
import {
  addDomain,
  proveDomain,
  recordDomainCheck,
  DOMAIN_CHECKS_PER_ORG,
  normalizeDomain,
  organizationHoldingHost,
  removeDomain,
  txtResolver,
  verificationInstructions,
  WELL_KNOWN_PATH,
  type DomainCheckDeps,
} from '../../lib/identity/domains';
import { cliRunner } from '../support/cli';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { startDnsServer, type DnsServer } from '../support/dns-server';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

describe('verified domains', () => {
  let database: TestDatabase;
  let dns: DnsServer;
  let web: WebhookReceiver;
  let deps: DomainCheckDeps;
  let acme: Organization;
  let rival: Organization;
  let owner: User;
  let orgs = 0;

  const context = (tx: Queryable, org: Organization) => ({
    tx,
    orgId: org.id,
    audit: (record: Omit<AuditRecord, 'orgId' | 'actor' | 'act'>) => recordAuditEvent(tx, { ...record, orgId: org.id, actor: { type: 'operator_cli', label: 'test' } }),
  });
  const add = (org: Organization, domain: string) => database.db.transaction((tx) => addDomain(context(tx, org), domain));
  // As every door runs it: the network outside any transaction, then the record with its one audit event.
  const check = async (org: Organization, domain: string) => {
    const proof = await proveDomain(database.db, deps, org.id, domain);
    return runOrgOperation(database.db, { org, role: 'owner', actor: { person: owner, ip: '192.0.2.1', door: 'console' } }, { audit: 'exactly_one' }, ({ tx, audit }) => recordDomainCheck({ tx, audit, orgId: org.id }, proof));
  };
  const newOrg = () => createOrganization(database.db, { slug: `domains-${++orgs}-${randomBytes(3).toString('hex')}`, name: 'Domains' });

  beforeAll(async () => {
    database = await openTestDatabase();
    dns = await startDnsServer();
    web = await startWebhookReceiver(inject('tlsDir'));
    // The hourly limit's window is fixed in the middle of an hour: no check here straddles two windows.
    const midHour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 + 1_800_000);
    deps = { resolveTxt: txtResolver([dns.address]), outbound: { allowLoopback: true }, httpsOrigin: () => web.origin, now: () => midHour };
    acme = await newOrg();
    rival = await newOrg();
    owner = await createUser(database.db, { email: 'domains-owner@example.test', name: 'Owner', passwordHash: null });
  });
  afterAll(async () => {
    await dns?.close();
    await web?.close();
    await database?.close();
  });

  it('takes a domain as people type it, and nothing that is not one', () => {
    expect(normalizeDomain(' Example.COM. ')).toBe('example.com');
    expect(normalizeDomain('bücher.example')).toBe('xn--bcher-kva.example');
    for (const bad of ['', 'localhost', 'https://example.com', 'example.com/path', 'user@example.com', '192.0.2.1', '[::1]', 'a..b', '-a.example', 'a_b.example', 'example.123', `${'a'.repeat(64)}.example`]) {
      expect(normalizeDomain(bad), bad).toBeUndefined();
    }
  });

  it('is verified by its TXT record; until then the check says what it did not find', async () => {
    const added = await add(acme, 'acme.example');
    web.failNext(404);
    const first = await check(acme, 'acme.example');
    expect(first).toMatchObject({ verified: false, failure: { dns: 'no_record', https: 'not_found' } });
    const how = verificationInstructions(added);
    expect(how.dnsName).toBe('_portico-challenge.acme.example');
    dns.txt.set(how.dnsName, ['v=spf1 -all']);
    expect(await check(acme, 'acme.example')).toMatchObject({ verified: false, failure: { dns: 'other_value' } });
    dns.txt.set(how.dnsName, ['v=spf1 -all', how.dnsValue]);
    expect(await check(acme, added.id)).toMatchObject({ verified: true, domain: { verifiedBy: 'dns', lastCheckError: null } });
    const actions = await database.db.select({ action: auditEvents.action }).from(auditEvents).where(eq(auditEvents.subjectId, added.id));
    // Each check is one audit event: what it did not find, then the verification.
    expect(actions.map((row) => row.action)).toEqual(['org.domain_added', 'org.domain_checked', 'org.domain_checked', 'org.domain_verified']);
  });

  it('is verified by its well-known file, and not by a file that holds something else', async () => {
    const added = await add(acme, 'files.acme.example');
    web.files.set(WELL_KNOWN_PATH, 'portico-domain-verification=someone-else');
    expect(await check(acme, 'files.acme.example')).toMatchObject({ verified: false, failure: { dns: 'no_record', https: 'other_content' } });
    web.files.set(WELL_KNOWN_PATH, `${verificationInstructions(added).fileContent}\n`);
    expect(await check(acme, 'files.acme.example')).toMatchObject({ verified: true, domain: { verifiedBy: 'https' } });
    web.files.delete(WELL_KNOWN_PATH);
  });

  it('belongs to one organization only: another cannot add it once verified, nor verify it at the same moment', async () => {
    await expect(add(rival, 'acme.example')).rejects.toThrow(/verified by another organization/);
    // Nor a name under it, however it is proved.
    await expect(add(rival, 'blog.acme.example')).rejects.toThrow(/acme.example is verified by another organization/);
    // Both add the same domain before anyone verified it, both publish their record, both check at once.
    const [mine, theirs] = [await add(acme, 'race.example'), await add(rival, 'race.example')];
    dns.txt.set('_portico-challenge.race.example', [verificationInstructions(mine).dnsValue, verificationInstructions(theirs).dnsValue]);
    const outcomes = await Promise.allSettled([check(acme, 'race.example'), check(rival, 'race.example')]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value.verified)).toHaveLength(1);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult | undefined;
    expect(refused?.reason).toBeInstanceOf(CommandRefusal);
    expect((await database.db.select().from(orgDomains).where(eq(orgDomains.domain, 'race.example'))).filter((row) => row.verifiedAt)).toHaveLength(1);
  });

  it('does not verify a name under another organization’s domain, even one added before that domain was verified', async () => {
    const sub = await add(rival, 'shop.parent.example');
    const parent = await add(acme, 'parent.example');
    dns.txt.set('_portico-challenge.parent.example', [verificationInstructions(parent).dnsValue]);
    expect((await check(acme, 'parent.example')).verified).toBe(true);
    dns.txt.set('_portico-challenge.shop.parent.example', [verificationInstructions(sub).dnsValue]);
    await expect(check(rival, 'shop.parent.example')).rejects.toThrow(/parent.example is verified by another organization/);
  });

  it('keeps another organization’s apps off it and off its subdomains', async () => {
    const issuer = 'https://id.example.test';
    expect(await organizationHoldingHost(database.db, 'portal.acme.example')).toEqual({ orgId: acme.id, domain: 'acme.example' });
    for (const origin of ['https://acme.example', 'https://portal.acme.example', 'https://deep.files.acme.example:8443']) {
      await expect(assertPublishOriginAvailable(database.db, { origin, issuer, orgId: rival.id })).rejects.toThrow(PublishOriginTaken);
      await expect(assertPublishOriginAvailable(database.db, { origin, issuer, orgId: acme.id })).resolves.toBeUndefined();
    }
    await expect(assertPublishOriginAvailable(database.db, { origin: 'https://notacme.example', issuer, orgId: rival.id })).resolves.toBeUndefined();
    // Removed, the domain is nobody's again.
    await database.db.transaction((tx) => removeDomain(context(tx, acme), 'files.acme.example'));
    expect(await organizationHoldingHost(database.db, 'x.files.acme.example')).toEqual({ orgId: acme.id, domain: 'acme.example' });
  });

  it('refuses what is not a domain, a domain it has already, and checks beyond the hourly limit', async () => {
    for (const [input, words] of [
      ['https://acme.example/x', 'Enter a domain name'],
      ['acme.example', 'already one of this organization'],
    ] as const) {
      const refusal = await add(acme, input).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(CommandRefusal);
      expect((refusal as CommandRefusal).message).toContain(words);
    }
    const busy = await newOrg();
    await add(busy, 'busy.example');
    for (let i = 0; i < DOMAIN_CHECKS_PER_ORG.limit; i += 1) expect(await check(busy, 'busy.example')).toMatchObject({ verified: false, failure: { https: 'status', status: 204 } });
    await expect(check(busy, 'busy.example')).rejects.toThrow(/checks an hour/);
    await expect(check(busy, 'unknown.example')).rejects.toThrow(/no such domain/);
  });

  it('is managed from the CLI too, audited as the operator', async () => {
    const org = await newOrg();
    const run = cliRunner(database.db, randomBytes(32));
    const added = await run('domains', 'add', '--org', org.slug, '--domain', 'Cli.Example');
    expect(added.code, added.err).toBe(0);
    expect(added.out).toContain('_portico-challenge.cli.example');
    expect((await run('domains', 'list', '--org', org.slug)).out).toContain('cli.example\tnot verified');
    expect((await run('domains', 'add', '--org', org.slug, '--domain', 'not a domain')).err).toContain('Enter a domain name');
    expect((await run('domains', 'remove', '--org', org.slug, '--domain', 'cli.example')).code).toBe(0);
    expect((await run('domains', 'list', '--org', org.slug)).out).toContain('has no domains');
    const events = await database.db.select().from(auditEvents).where(eq(auditEvents.orgId, org.id));
    expect(events.map((event) => [event.action, event.actorType])).toEqual([
      ['org.domain_added', 'operator_cli'],
      ['org.domain_removed', 'operator_cli'],
    ]);
  });
});
