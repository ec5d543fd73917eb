// One canonical address (lib/util/email.ts): `victim@example.com.` and `victim@EXAMPLE.com` are the victim's address
// wherever an address is looked up or stored, and migration 0052 brings stored look-alikes to it, saying what it did.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, findUserByEmail } from '../../lib/accounts/users';
import { postgresErrorCode } from '../../lib/db/client';
import { auditEvents, users } from '../../lib/db/schema';
import { domainOfEmail } from '../../lib/identity/connections';
import { normalizeEmail } from '../../lib/util/email';
import { openTestDatabase, type TestDatabase } from '../support/databases';

describe('one canonical address', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  it('folds case, the trailing dot of a fully qualified domain and internationalized domains to one form', () => {
    expect(normalizeEmail('  Victim@EXAMPLE.com. ')).toBe('victim@example.com');
    expect(normalizeEmail('victim@example.com..')).toBe('victim@example.com');
    expect(normalizeEmail('ana@exämple.com')).toBe('ana@xn--exmple-cua.com');
    expect(normalizeEmail('ana@XN--EXMPLE-CUA.com.')).toBe('ana@xn--exmple-cua.com');
    expect(normalizeEmail('not an address')).toBe('not an address');
    // Values no text column can hold come out as U+FFFD: they match no account, and the lookup does not fail.
    expect(normalizeEmail('a\u0000b@example.com')).toBe('a\uFFFDb@example.com');
    expect(normalizeEmail('a\ud800@example.com')).toBe('a\uFFFD@example.com');
    expect(domainOfEmail(normalizeEmail('x@Company.TEST.'))).toBe('company.test');
  });

  it('finds the account by any spelling of its address, and makes no second account for a look-alike', async () => {
    const tag = randomBytes(3).toString('hex');
    const victim = await createUser(database.db, { email: `victim-${tag}@example.com`, name: 'Victim', passwordHash: null });
    for (const spelling of [`victim-${tag}@example.com.`, `VICTIM-${tag}@Example.COM`, ` victim-${tag}@example.com.. `]) {
      expect((await findUserByEmail(database.db, spelling))?.id, spelling).toBe(victim.id);
    }
    expect(await findUserByEmail(database.db, `victim-${tag}\u0000@example.com`)).toBeUndefined();
    const second = await createUser(database.db, { email: `Victim-${tag}@EXAMPLE.com.`, name: 'Look-alike', passwordHash: null }).catch((error: unknown) => error);
    expect(postgresErrorCode(second)).toBe('23505');
  });

  it('migration 0052 takes the trailing dot off stored addresses, leaves look-alikes to an operator, and records both', async () => {
    const tag = randomBytes(3).toString('hex');
    // Rows as an older Portico could have stored them (written around today's code, which no longer can).
    const [solo, dotted, plain] = await database.db
      .insert(users)
      .values([
        { email: `solo-${tag}@example.com.`, name: 'Solo' },
        { email: `dup-${tag}@example.com.`, name: 'Dotted' },
        { email: `dup-${tag}@example.com`, name: 'Plain' },
      ])
      .returning();
    const migration = readFileSync(path.join(process.cwd(), 'drizzle', '0052_canonical_email.sql'), 'utf8');
    for (const statement of migration.split('--> statement-breakpoint')) await database.db.execute(sql.raw(statement));
    const after = await database.db.select({ id: users.id, email: users.email }).from(users).where(inArray(users.id, [solo!.id, dotted!.id, plain!.id]));
    expect(Object.fromEntries(after.map((row) => [row.id, row.email]))).toEqual({ [solo!.id]: `solo-${tag}@example.com`, [dotted!.id]: `dup-${tag}@example.com.`, [plain!.id]: `dup-${tag}@example.com` });
    const said = await database.db.select({ action: auditEvents.action, subjectId: auditEvents.subjectId, details: auditEvents.details }).from(auditEvents).where(and(eq(auditEvents.actorLabel, 'migration 0052'), inArray(auditEvents.subjectId, [solo!.id, dotted!.id, plain!.id])));
    expect(said).toEqual(
      expect.arrayContaining([
        { action: 'account.email_canonicalized', subjectId: solo!.id, details: { from: `solo-${tag}@example.com.`, to: `solo-${tag}@example.com` } },
        { action: 'account.email_look_alike', subjectId: dotted!.id, details: { canonical: `dup-${tag}@example.com`, otherAccount: plain!.id } },
      ]),
    );
    expect(said).toHaveLength(2);
  });
});
