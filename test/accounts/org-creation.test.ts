// A person creates an organization from the console and owns it: one transaction for the organization, the
// membership and the audit event; a taken, reserved or malformed address refused next to its field (a free one
// suggested); two people taking the same address at once: one gets it; a daily bound per person.
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwnedOrganization, findOrganizationBySlug, ORG_CREATION_LIMIT } from '../../lib/organizations/organizations';
import { Refusal as OrganizationRefusal } from '../../lib/refusals/refusal';
import { isActiveMember } from '../../lib/organizations/memberships';
import { createUser } from '../../lib/accounts/users';
import { auditEvents } from '../../lib/db/schema';
import { freeSlug, slugFromName } from '../../lib/util/slug';
import { openTestDatabase, type TestDatabase } from '../support/databases';

describe('creating an organization', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => database?.close());

  const person = () => createUser(database.db, { email: `founder-${randomBytes(3).toString('hex')}@orgs.test`, name: 'Founder', passwordHash: null });
  const create = (owner: { id: string; email: string }, name: string, slug: string) => database.db.transaction((tx) => createOwnedOrganization(tx, { name, slug, owner, ip: '192.0.2.7' }));
  const refusal = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      if (error instanceof OrganizationRefusal) return { field: error.field, message: error.message };
      throw error;
    }
    throw new Error('not refused');
  };

  it('makes the creator its owner, audited in the same transaction', async () => {
    const founder = await person();
    const org = await create(founder, '  Acme Rockets  ', 'acme-rockets');
    expect(org).toMatchObject({ name: 'Acme Rockets', slug: 'acme-rockets' });
    expect(await isActiveMember(database.db, org.id, founder.id)).toBe(true);
    const [event] = await database.db.select().from(auditEvents).where(eq(auditEvents.orgId, org.id));
    expect(event).toMatchObject({ action: 'org.created', actorType: 'person', actorLabel: founder.email });
  });

  it('refuses a taken, reserved or malformed address next to its field, suggesting a free one', async () => {
    const founder = await person();
    await create(founder, 'Taken', 'taken-co');
    expect(await refusal(create(founder, 'Taken again', 'taken-co'))).toEqual({ field: 'slug', message: 'The address taken-co is taken. taken-co-2 is free.' });
    expect((await refusal(create(founder, 'Console', 'account'))).field).toBe('slug');
    expect((await refusal(create(founder, 'Bad', 'Bad Slug!'))).field).toBe('slug');
    expect((await refusal(create(founder, '   ', 'blank-name'))).field).toBe('name');
    expect(await findOrganizationBySlug(database.db, 'blank-name')).toBeUndefined();
  });

  it('gives one address to one of two people asking at once', async () => {
    const [one, two] = await Promise.all([person(), person()]);
    const outcomes = await Promise.allSettled([create(one, 'Race', 'race-co'), create(two, 'Race', 'race-co')]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(OrganizationRefusal);
    const org = (await findOrganizationBySlug(database.db, 'race-co'))!;
    // Exactly one owner: the one whose organization it is.
    expect([await isActiveMember(database.db, org.id, one.id), await isActiveMember(database.db, org.id, two.id)].filter(Boolean)).toHaveLength(1);
  });

  it('bounds how many a person creates in a day', async () => {
    const founder = await person();
    for (let n = 0; n < ORG_CREATION_LIMIT.limit; n++) await create(founder, `Many ${n}`, `many-${founder.id.slice(0, 8)}-${n}`);
    expect((await refusal(create(founder, 'One too many', `many-${founder.id.slice(0, 8)}-x`))).message).toContain('Try again tomorrow');
  });

  it('makes a valid slug from any name, cutting a long one', () => {
    expect(slugFromName('Acme Rockets, Inc.')).toBe('acme-rockets-inc');
    expect(slugFromName('Crème Brûlée')).toBe('creme-brulee');
    const long = slugFromName(`${'word '.repeat(30)}end`);
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long).toMatch(/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/);
    expect(slugFromName('!!!', 'app')).toBe('app');
    expect(freeSlug('a'.repeat(64), (candidate) => candidate === 'a'.repeat(64))).toBe(`${'a'.repeat(62)}-2`);
  });
});
