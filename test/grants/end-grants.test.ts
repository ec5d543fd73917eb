// lib/grants: after endGrants, nothing issued from the grant works — refresh tokens, codes in flight, opaque access
// tokens — and each selector names exactly the grants it says.
import * as oidc from 'openid-client';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oidcPayloads } from '../../lib/db/schema';
import { endGrants, grantsOfClient, grantsOfOrganization, grantsOfPerson, grantsOfPersonInOrganization } from '../../lib/grants';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { createMember, createOrgWithApp, relyingParty, signIn, startProviderHarness, type AppFixture, type Harness } from '../support/provider-harness';

describe('ending grants', () => {
  let database: TestDatabase;
  let harness: Harness;
  let appA: AppFixture;
  let appB: AppFixture;
  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    [appA, appB] = [await createOrgWithApp(database, 'Grants A'), await createOrgWithApp(database, 'Grants B')];
  });
  afterAll(async () => {
    await harness.close();
    await database.close();
  });

  it('ends the grant with every refresh token, code in flight and opaque access token issued from it', async () => {
    const person = await createMember(database, appA.orgId, 'ends@grants.test');
    const rp = await relyingParty(harness, appA);
    const withRefresh = await signIn(harness, database, rp, appA, { email: person.email }, { scope: 'openid offline_access', prompt: 'consent' });
    const tokens = await oidc.authorizationCodeGrant(rp, withRefresh.callbackUrl!, withRefresh.checks);
    const inFlight = await signIn(harness, database, rp, appA, { email: person.email });
    expect(await oidc.fetchUserInfo(rp, tokens.access_token, person.id)).toMatchObject({ sub: person.id });

    const grantIds = await grantsOfClient(database.db, appA.clientId);
    expect(grantIds.length).toBeGreaterThan(0);
    const ended = await endGrants(database.db, grantIds);
    expect(ended.grants).toBe(grantIds.length);
    expect(ended.byKind.Grant).toBe(grantIds.length);

    await expect(oidc.refreshTokenGrant(rp, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(oidc.authorizationCodeGrant(rp, inFlight.callbackUrl!, inFlight.checks)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(oidc.fetchUserInfo(rp, tokens.access_token, person.id)).rejects.toBeDefined();
    for (const grantId of grantIds) expect(await database.db.select().from(oidcPayloads).where(eq(oidcPayloads.grantId, grantId))).toEqual([]);
    // Ending nothing is a no-op.
    expect(await endGrants(database.db, [])).toEqual({ grants: 0, byKind: {} });
  });

  it('selectors name a person’s grants per organization, and an organization’s, and nothing of another', async () => {
    const person = await createMember(database, appA.orgId, 'both@grants.test');
    const { addMember } = await import('../../lib/accounts/memberships');
    await addMember(database.db, { orgId: appB.orgId, userId: person.id, role: 'member' });
    for (const app of [appA, appB]) {
      const rp = await relyingParty(harness, app);
      const attempt = await signIn(harness, database, rp, app, { email: person.email }, { scope: 'openid offline_access', prompt: 'consent' });
      await oidc.authorizationCodeGrant(rp, attempt.callbackUrl!, attempt.checks);
    }
    const inA = await grantsOfPersonInOrganization(database.db, appA.orgId, person.id);
    const inB = await grantsOfPersonInOrganization(database.db, appB.orgId, person.id);
    expect(inA).toHaveLength(1);
    expect(inB).toHaveLength(1);
    expect(inA[0]).not.toBe(inB[0]);
    expect((await grantsOfPerson(database.db, person.id)).sort()).toEqual([...inA, ...inB].sort());
    expect(await grantsOfOrganization(database.db, appB.orgId)).toContain(inB[0]);
    expect(await grantsOfOrganization(database.db, appB.orgId)).not.toContain(inA[0]);
  });
});
