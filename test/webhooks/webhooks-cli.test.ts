// The webhook commands of the operator CLI: the same commands as the console, the secret printed once, refusals as
// the command's own error, outside text escaped for the terminal.
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../lib/organizations/organizations';
import { auditEvents, outboundDeliveries, webhookEndpoints } from '../../lib/db/schema';
import { decryptAtRest } from '../../lib/security/at-rest';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { cliRunner } from '../support/cli';

describe('webhooks from the CLI', () => {
  let database: TestDatabase;
  const atRestKey = randomBytes(32);
  const answers: boolean[] = [];
  beforeAll(async () => {
    database = await openTestDatabase();
    await createOrganization(database.db, { slug: 'acme', name: 'Acme' });
  });
  afterAll(async () => database.close());

  const run = (...argv: string[]) => cliRunner(database.db, atRestKey, answers)(...argv);

  it('adds, lists, updates, rotates, tests and removes an endpoint; secrets are printed once', async () => {
    // An address literal: checked without a lookup, and nothing connects to it here.
    const added = await run('webhooks', 'add', '--org', 'acme', '--url', 'https://93.184.216.34/hooks/portico', '--event', 'approval.*,security.*', '--description', 'pager');
    expect(added.code).toBe(0);
    const secret = /(whsec_\S+)/.exec(added.out)?.[1];
    const [endpoint] = await database.db.select().from(webhookEndpoints);
    expect(await decryptAtRest(endpoint!.sealedSecret, atRestKey)).toBe(secret);
    expect(endpoint!.events).toEqual(['approval.*', 'security.*']);

    const listed = await run('webhooks', 'list', '--org', 'acme');
    expect(listed.out.split('\n')[0]).toBe('ENDPOINT\tURL\tFORMAT\tON\tEVENTS\tLAST DELIVERY\tWAITING\tGIVEN UP');
    expect(listed.out).toContain(`${endpoint!.id}\thttps://93.184.216.34/hooks/…\tstandard\ton\tapproval.*,security.*`);
    expect(listed.out).not.toContain(secret!);

    expect((await run('webhooks', 'update', endpoint!.id, '--org', 'acme', '--off', '--event', 'member.added')).out).toContain('off, receives member.added');
    const rotated = await run('webhooks', 'rotate', endpoint!.id, '--org', 'acme', '--overlap-hours', '2');
    expect(rotated.code).toBe(0);
    const fresh = /(whsec_\S+)/.exec(rotated.out)?.[1];
    expect(fresh).not.toBe(secret);
    const [afterRotation] = await database.db.select().from(webhookEndpoints);
    expect(await decryptAtRest(afterRotation!.sealedPreviousSecret!, atRestKey)).toBe(secret);

    expect((await run('webhooks', 'test', endpoint!.id, '--org', 'acme')).code).toBe(0);
    const deliveries = await run('webhooks', 'deliveries', endpoint!.id, '--org', 'acme');
    expect(deliveries.out).toMatch(/webhook\.test\tmsg_test_[0-9a-f]+\twaiting\t0 attempts/);

    // Removal asks first; "no" keeps it.
    answers.push(false);
    expect((await run('webhooks', 'remove', endpoint!.id, '--org', 'acme')).code).toBe(1);
    expect((await run('webhooks', 'remove', endpoint!.id, '--org', 'acme', '--yes')).code).toBe(0);
    expect(await database.db.select().from(webhookEndpoints)).toEqual([]);
    expect(await database.db.select().from(outboundDeliveries)).toEqual([]);
    const actions = (await database.db.select({ action: auditEvents.action, actor: auditEvents.actorLabel }).from(auditEvents).where(eq(auditEvents.subjectType, 'webhook_endpoint'))).map((row) => `${row.action} ${row.actor}`);
    expect(actions).toEqual(['webhook.created cli:test@host', 'webhook.updated cli:test@host', 'webhook.secret_rotated cli:test@host', 'webhook.test_sent cli:test@host', 'webhook.deleted cli:test@host']);
  });

  it('refuses a private address, an unknown event and a missing option with the command’s own words', async () => {
    const internal = await run('webhooks', 'add', '--org', 'acme', '--url', 'https://10.0.0.8/hook', '--event', 'approval.*');
    expect([internal.code, internal.err]).toEqual([1, 'The host 10.0.0.8 is on a private network, which Portico reaches only where its installation allows it: whoever runs Portico can add this network or host to PORTICO_OUTBOUND_ALLOWED_NETWORKS (see docs/deploy.md).']);
    const unknown = await run('webhooks', 'add', '--org', 'acme', '--url', 'https://93.184.216.34/h', '--event', 'approval.nonsense');
    expect([unknown.code, unknown.err]).toEqual([1, '“approval.nonsense” is not an event Portico sends.']);
    expect((await run('webhooks', 'add', '--org', 'acme', '--url', 'https://93.184.216.34/h')).code).toBe(2);
    expect((await run('webhooks', 'add', '--org', 'acme', '--url', 'https://93.184.216.34/h', '--event', '*', '--description', 'x\u001b[2J')).code).toBe(1);
    expect((await run('webhooks', 'list', '--org', 'nowhere')).code).toBe(1);
    expect(await database.db.select().from(webhookEndpoints)).toEqual([]);
  });
});
