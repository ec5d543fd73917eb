// PKCE for every sign-in (OAuth 2.1 §4.1.1), and the one exception RFC 9700 §2.1.1 allows: a confidential OpenID
// Connect client that sends a nonce instead, only at an app whose admin turned it on ("allow relying parties that send
// a nonce but no PKCE", for passport-openidconnect and its like). The browser-level test with passport-openidconnect
// itself is e2e/relying-parties.spec.ts.
import { randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import { setNonceWithoutPkce } from '../../lib/clients/apps';
import { NONCE_WITHOUT_PKCE_FIELD, pkceRequired } from '../../lib/oidc/client-policy';
import { createMember, createOrgWithApp, relyingParty, signIn, useProviderHarness } from '../support/provider-harness';

const WITHOUT_PKCE = { code_challenge: '', code_challenge_method: '' };

describe('a nonce instead of PKCE', () => {
  const suite = useProviderHarness();

  async function appWithPerson(name: string) {
    const app = await createOrgWithApp(suite.database, name);
    const email = `p-${randomBytes(4).toString('hex')}@example.com`;
    await createMember(suite.database, app.orgId, email);
    return { app, email, config: await relyingParty(suite.harness, app) };
  }

  it('is refused by default: a sign-in without PKCE gets invalid_request, nonce or not', async () => {
    const { app, email, config } = await appWithPerson('Strict');
    const attempt = await signIn(suite.harness, suite.database, config, app, { email }, WITHOUT_PKCE);
    expect(attempt.outcome).toEqual({ kind: 'expired' });
    expect(attempt.callbackUrl?.searchParams.get('error')).toBe('invalid_request');
    expect(attempt.callbackUrl?.searchParams.get('error_description')).toMatch(/PKCE/);
  });

  it('is accepted where the app allows it and the request carries a nonce; the ID token carries that nonce, and a replayed code is refused', async () => {
    const { app, email, config } = await appWithPerson('Legacy portal');
    expect(await setNonceWithoutPkce(suite.database.db, app.clientId, true)).toBe(true);
    expect(await setNonceWithoutPkce(suite.database.db, app.clientId, true)).toBe(false);
    const attempt = await signIn(suite.harness, suite.database, config, app, { email }, WITHOUT_PKCE);
    expect(attempt.outcome.kind).toBe('continue');
    const tokens = await oidc.authorizationCodeGrant(config, attempt.callbackUrl!, { expectedState: attempt.checks.expectedState, expectedNonce: attempt.checks.expectedNonce });
    expect(tokens.claims()).toMatchObject({ nonce: attempt.checks.expectedNonce, email });
    await expect(oidc.authorizationCodeGrant(config, attempt.callbackUrl!, { expectedState: attempt.checks.expectedState, expectedNonce: attempt.checks.expectedNonce })).rejects.toMatchObject({ error: 'invalid_grant' });

    // Without a nonce, PKCE is required still.
    const noNonce = await signIn(suite.harness, suite.database, config, app, { email }, { ...WITHOUT_PKCE, nonce: '' });
    expect(noNonce.callbackUrl?.searchParams.get('error')).toBe('invalid_request');
    // A relying party that sends PKCE is served as before (both may be sent).
    const withPkce = await signIn(suite.harness, suite.database, config, app, { email });
    expect(withPkce.outcome.kind).toBe('continue');
    await oidc.authorizationCodeGrant(config, withPkce.callbackUrl!, withPkce.checks);

    // Turned off again: PKCE for every sign-in.
    expect(await setNonceWithoutPkce(suite.database.db, app.clientId, false)).toBe(true);
    expect(await setNonceWithoutPkce(suite.database.db, app.clientId, false)).toBe(false);
    // (The read cache drops the client on the change; let its notification arrive.)
    await expect.poll(async () => (await signIn(suite.harness, suite.database, config, app, { email }, WITHOUT_PKCE)).callbackUrl?.searchParams.get('error'), { timeout: 5000 }).toBe('invalid_request');
  });

  it('never applies to public or MCP clients, whatever their metadata says', () => {
    const asks = { scope: 'openid email', nonce: 'n-0S6_WzA2Mj' };
    const app = { portico_kind: 'app', tokenEndpointAuthMethod: 'client_secret_basic', [NONCE_WITHOUT_PKCE_FIELD]: true };
    expect(pkceRequired(app, asks)).toBe(false);
    expect(pkceRequired({ ...app, [NONCE_WITHOUT_PKCE_FIELD]: false }, asks)).toBe(true);
    expect(pkceRequired({ ...app, tokenEndpointAuthMethod: 'none' }, asks)).toBe(true);
    for (const kind of ['external', 'dynamic', 'cimd']) expect(pkceRequired({ ...app, portico_kind: kind }, asks), kind).toBe(true);
    expect(pkceRequired({ ...app, clientIdMetadataDocument: true }, asks)).toBe(true);
    // Not OpenID Connect, or no nonce: PKCE.
    expect(pkceRequired(app, { scope: 'mcp', nonce: 'n' })).toBe(true);
    expect(pkceRequired(app, { scope: 'openid' })).toBe(true);
    expect(pkceRequired(app, { scope: 'openid', nonce: '' })).toBe(true);
  });
});
