// The per-process read cache (lib/db/read-cache.ts) on the real database: rows come back from it until any change to
// them, by this or by another connection (another instance), drops them; a read that raced a change is not kept;
// nothing is served while the invalidation feed is down; time windows are checked at use, never cached.
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, findAccountInOrganization } from '../../lib/organizations/memberships';
import { findAppByIdentity, findAppByResource } from '../../lib/clients/apps';
import { loadClient, VALID_FROM_TOLERANCE_MS } from '../../lib/clients/client-metadata';
import { drizzleFor, openRawDatabase, readCacheOf, rowsOf, type Database, type RawDatabase } from '../../lib/db/client';
import { CACHE_TTL_MS, LISTENER_APPLICATION_NAME, ReadCache } from '../../lib/db/read-cache';
import { clientSecrets, clients, memberships, redirectUris, users } from '../../lib/db/schema';
import { openTestDatabase, postgresOptions, type TestDatabase } from '../support/databases';
import { createMember, createOrgWithApp, type AppFixture } from '../support/provider-harness';

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('read cache', () => {
  let database: TestDatabase;
  let counted: Database;
  const statements: string[] = [];
  let app: AppFixture;

  beforeAll(async () => {
    database = await openTestDatabase();
    counted = drizzleFor(database.raw, { onQuery: (query) => statements.push(query) });
    app = await createOrgWithApp(database, 'Cached');
  });
  afterAll(async () => {
    await database?.close();
  });

  const readsOf = async (work: () => Promise<unknown>) => {
    statements.length = 0;
    await work();
    return statements.length;
  };
  // Served from the cache, once the notifications of earlier writes have arrived (a read that one overtakes is not
  // kept, so the first reads after a write may all go to the database).
  const becomesCached = (work: () => Promise<unknown>) => until(async () => (await readsOf(work)) === 0, 'a read served from the cache', 3000);

  it('serves a client from the cache until the client, its secrets or its app change', async () => {
    // The feed starts with the first read; nothing is kept before it listens.
    await loadClient(counted, app.clientId, 'x');
    await until(() => database.raw.readCache!.live, 'the feed');
    await becomesCached(() => loadClient(counted, app.clientId, 'x'));

    await database.db.update(clients).set({ name: 'Renamed' }).where(eq(clients.id, app.clientId));
    let loaded = await loadClient(counted, app.clientId, 'x');
    expect(loaded?.metadata.client_name).toBe('Renamed');

    // A secret that expires is gone at its expiry, read from the cached row: the window is checked at each use.
    const [secret] = await database.db.select().from(clientSecrets).where(eq(clientSecrets.clientId, app.clientId));
    const expiry = Date.now() + 2000;
    await database.db.update(clientSecrets).set({ validUntil: new Date(expiry) }).where(eq(clientSecrets.id, secret!.id));
    // (The trigger's notification of this write drops the entry again when it arrives: let it arrive first.)
    await new Promise((resolve) => setTimeout(resolve, 300));
    loaded = await loadClient(counted, app.clientId, 'x');
    expect(loaded?.secretHashesValidNow).toEqual([secret!.secretHash]);
    await becomesCached(() => loadClient(counted, app.clientId, 'x'));
    await new Promise((resolve) => setTimeout(resolve, expiry + 100 - Date.now()));
    const reads = await readsOf(async () => {
      loaded = await loadClient(counted, app.clientId, 'x');
    });
    expect(reads).toBe(0);
    expect(loaded?.secretHashesValidNow).toEqual([]);

    // Revoking the client is seen at once.
    await database.db.update(clients).set({ revokedAt: new Date() }).where(eq(clients.id, app.clientId));
    expect(await loadClient(counted, app.clientId, 'x')).toBeUndefined();
  });

  it('accepts a secret made a moment ago when the estimated database clock lags a little (the CIBA flake of stop 62)', async () => {
    await loadClient(counted, app.clientId, 'x'); // the feed starts with the first read
    await until(() => database.raw.readCache?.live === true, 'the feed');
    const cache = database.raw.readCache!;
    const measured = cache.clockOffsetMs;
    try {
      // The feed's estimate is off by up to half a round trip; under load that is tens of milliseconds. Within the
      // tolerance a secret made just now counts; past it (a clock truly behind), it is not valid yet.
      cache.clockOffsetMs = measured - (VALID_FROM_TOLERANCE_MS - 1000);
      const fresh = await createOrgWithApp(database, 'Fresh secret');
      expect((await loadClient(counted, fresh.clientId, 'x'))?.secretHashesValidNow).toHaveLength(1);
      cache.clockOffsetMs = measured - (VALID_FROM_TOLERANCE_MS + 5000);
      const early = await createOrgWithApp(database, 'Early secret');
      expect((await loadClient(counted, early.clientId, 'x'))?.secretHashesValidNow).toHaveLength(0);
    } finally {
      cache.clockOffsetMs = measured;
    }
  });

  it('drops an app found by its resource when any app client or its redirect URIs change', async () => {
    const fixture = await createOrgWithApp(database, 'Resource');
    const found = await findAppByResource(counted, fixture.resource);
    expect(found?.id).toBe(fixture.app.id);
    await becomesCached(() => findAppByResource(counted, fixture.resource));
    // Another app claims the same origin: now the resource names no app at all.
    const other = await createOrgWithApp(database, 'Claimant');
    await database.db.insert(redirectUris).values({ clientId: other.clientId, uri: fixture.redirectUri.replace('/callback', '/other-callback'), devOnly: false });
    await until(async () => (await findAppByResource(counted, fixture.resource)) === undefined, 'the shared origin to name no app', 2000);
    expect(await findAppByIdentity(counted, fixture.app.identity)).toBeDefined();
  });

  it('drops a person when their membership changes', async () => {
    const person = await createMember(database, app.orgId, `cached-${Date.now()}@acme.test`);
    expect((await findAccountInOrganization(counted, person.id, app.orgId))?.member).toBe(true);
    await becomesCached(() => findAccountInOrganization(counted, person.id, app.orgId));
    await database.db.delete(memberships).where(eq(memberships.userId, person.id));
    expect((await findAccountInOrganization(counted, person.id, app.orgId))?.member).toBe(false);
    await addMember(database.db, { orgId: app.orgId, userId: person.id, role: 'member' });
    expect((await findAccountInOrganization(counted, person.id, app.orgId))?.member).toBe(true);
    await database.db.update(users).set({ disabledAt: new Date() }).where(eq(users.id, person.id));
    expect((await findAccountInOrganization(counted, person.id, app.orgId))?.user.disabledAt).not.toBeNull();
  });

  it('never keeps a read that a change overtook, and keeps nothing past the TTL', async () => {
    let now = 1_000_000;
    const cache = new ReadCache(() => {
      queueMicrotask(() => cache.setLive(true));
      return { stop: async () => {} };
    }, () => now);
    let loads = 0;
    await cache.read('k', async () => ++loads, () => ['t']);
    expect(cache.live).toBe(true);
    // A change lands while the read is under way: what it read may be the old row, so it is not stored.
    await cache.read('k', async () => (cache.invalidate('t:other'), ++loads), () => ['t']);
    await cache.read('k', async () => ++loads, () => ['t']);
    expect(loads).toBe(3);
    await cache.read('k', async () => ++loads, () => ['t']);
    expect(loads).toBe(3);
    now += CACHE_TTL_MS;
    await cache.read('k', async () => ++loads, () => ['t']);
    expect(loads).toBe(4);
    // Its tag drops it; a feed that goes down empties it and stores nothing until it is back.
    cache.invalidate('t');
    await cache.read('k', async () => ++loads, () => ['t']);
    cache.setLive(false);
    await cache.read('k', async () => ++loads, () => ['t']);
    await cache.read('k', async () => ++loads, () => ['t']);
    expect(loads).toBe(7);
    expect(cache.size).toBe(0);
  });

  it('is off with PORTICO_READ_CACHE=false: every read goes to the database', async () => {
    const uncached = await openRawDatabase(database.kind === 'postgres' ? postgresOptions(database.url!, { poolSize: 2, readCache: false }) : { embeddedLocation: 'memory://', readCache: false });
    try {
      expect(uncached.readCache).toBeUndefined();
      expect(readCacheOf(drizzleFor(uncached))).toBeUndefined();
    } finally {
      await uncached.close();
    }
  });

  describe('across instances (PostgreSQL)', () => {
    let other: RawDatabase;
    beforeAll(async () => {
      if (database.kind !== 'postgres') return;
      other = await openRawDatabase(postgresOptions(database.url!, { poolSize: 2 }));
    });
    afterAll(async () => {
      await other?.close();
    });

    it("drops what another instance changed, and serves nothing while its own feed is down", async (context) => {
      if (database.kind !== 'postgres') return context.skip();
      const fresh = await createOrgWithApp(database, 'Elsewhere');
      await becomesCached(() => loadClient(counted, fresh.clientId, 'x'));
      // Instance B (another connection pool, as another process would have) renames the client.
      await drizzleFor(other).update(clients).set({ name: 'Renamed elsewhere' }).where(eq(clients.id, fresh.clientId));
      // Delivered within milliseconds (the TTL, a minute, would be far longer).
      await until(async () => (await loadClient(counted, fresh.clientId, 'x'))?.metadata.client_name === 'Renamed elsewhere', 'the rename', 2000);

      // The listening connection is cut: nothing is served or kept until it is back, then the cache starts empty.
      await becomesCached(() => loadClient(counted, fresh.clientId, 'x'));
      await drizzleFor(other).execute(sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = ${LISTENER_APPLICATION_NAME}`);
      await until(() => !database.raw.readCache!.live, 'the feed to drop');
      expect(database.raw.readCache!.size).toBe(0);
      expect(await readsOf(() => loadClient(counted, fresh.clientId, 'x'))).toBe(1);
      await until(() => database.raw.readCache!.live, 'the feed to come back');
      await becomesCached(() => loadClient(counted, fresh.clientId, 'x'));
      await drizzleFor(other).update(clients).set({ name: 'Renamed after reconnect' }).where(eq(clients.id, fresh.clientId));
      await until(async () => (await loadClient(counted, fresh.clientId, 'x'))?.metadata.client_name === 'Renamed after reconnect', 'the rename after reconnect', 2000);
    });

    it('takes itself out of service when its connection stops delivering without closing (a frozen path)', async (context) => {
      if (database.kind !== 'postgres') return context.skip();
      await until(() => database.raw.readCache!.live, 'the feed');
      const [backend] = rowsOf<{ pid: number }>(await drizzleFor(other).execute(sql`select pid from pg_stat_activity where datname = current_database() and application_name = ${LISTENER_APPLICATION_NAME}`));
      try {
        process.kill(backend!.pid, 'SIGSTOP');
      } catch {
        return context.skip(); // not allowed to signal PostgreSQL's processes here
      }
      try {
        // The socket stays open; only the heartbeat can tell.
        await until(() => !database.raw.readCache!.live, 'the heartbeat to notice', 15_000);
        expect(database.raw.readCache!.size).toBe(0);
      } finally {
        process.kill(backend!.pid, 'SIGCONT');
      }
      await until(() => database.raw.readCache!.live, 'a new listening connection', 15_000);
    });
  });
});
