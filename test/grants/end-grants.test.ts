// lib/grants: after endGrants, nothing issued from the grant works — refresh tokens, codes in flight, opaque access
// tokens — and each selector names exactly the grants it says.
import * as oidc from 'openid-client';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { oidcPayloads } from '../../lib/db/schema';
import { endGrants, grantsOfClient, grantsOfOrganization, grantsOfPerson, grantsOfPersonInOrganization } from '../../lib/grants';
import { createMember, createOrgWithApp, relyingParty, signIn, useProviderHarness, type AppFixture } from '../support/provider-harness';

describe('ending grants', () => {
  const suite = useProviderHarness();
  let appA: AppFixture;
  let appB: AppFixture;
  beforeAll(async () => {
    [appA, appB] = [await createOrgWithApp(suite.database, 'Grants A'), await createOrgWithApp(suite.database, 'Grants B')];
  });

  it('ends the grant with every refresh token, code in flight and opaque access token issued from it', async () => {
    const person = await createMember(suite.database, appA.orgId, 'ends@grants.test');
    const rp = await relyingParty(suite.harness, appA);
    const withRefresh = await signIn(suite.harness, suite.database, rp, appA, { email: person.email }, { scope: 'openid offline_access', prompt: 'consent' });
    const tokens = await oidc.authorizationCodeGrant(rp, withRefresh.callbackUrl!, withRefresh.checks);
    const inFlight = await signIn(suite.harness, suite.database, rp, appA, { email: person.email });
    expect(await oidc.fetchUserInfo(rp, tokens.access_token, person.id)).toMatchObject({ sub: person.id });

    const grantIds = await grantsOfClient(suite.database.db, appA.clientId);
    expect(grantIds.length).toBeGreaterThan(0);
    const ended = await endGrants(suite.database.db, grantIds);
    expect(ended.grants).toBe(grantIds.length);
    expect(ended.byKind.Grant).toBe(grantIds.length);

    await expect(oidc.refreshTokenGrant(rp, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(oidc.authorizationCodeGrant(rp, inFlight.callbackUrl!, inFlight.checks)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(oidc.fetchUserInfo(rp, tokens.access_token, person.id)).rejects.toBeDefined();
    for (const grantId of grantIds) expect(await suite.database.db.select().from(oidcPayloads).where(eq(oidcPayloads.grantId, grantId))).toEqual([]);
    // Ending nothing is a no-op.
    expect(await endGrants(suite.database.db, [])).toEqual({ grants: 0, byKind: {} });
  });

  it('selectors name a person’s grants per organization, and an organization’s, and nothing of another', async () => {
    const person = await createMember(suite.database, appA.orgId, 'both@grants.test');
    const { addMember } = await import('../../lib/organizations/memberships');
    await addMember(suite.database.db, { orgId: appB.orgId, userId: person.id, role: 'member' });
    for (const app of [appA, appB]) {
      const rp = await relyingParty(suite.harness, app);
      const attempt = await signIn(suite.harness, suite.database, rp, app, { email: person.email }, { scope: 'openid offline_access', prompt: 'consent' });
      await oidc.authorizationCodeGrant(rp, attempt.callbackUrl!, attempt.checks);
    }
    const inA = await grantsOfPersonInOrganization(suite.database.db, appA.orgId, person.id);
    const inB = await grantsOfPersonInOrganization(suite.database.db, appB.orgId, person.id);
    expect(inA).toHaveLength(1);
    expect(inB).toHaveLength(1);
    expect(inA[0]).not.toBe(inB[0]);
    expect((await grantsOfPerson(suite.database.db, person.id)).sort()).toEqual([...inA, ...inB].sort());
    expect(await grantsOfOrganization(suite.database.db, appB.orgId)).toContain(inB[0]);
    expect(await grantsOfOrganization(suite.database.db, appB.orgId)).not.toContain(inA[0]);
  });
});
