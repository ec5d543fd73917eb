// A stolen database holds no usable token (docs/security.md). After real flows — an app's sign-in with a refresh
// token rotated, an MCP client bound to the app (for the person and for an agent), an agent's own token exchange —
// every text value anywhere in the database is presented as a refresh token (to the app's client and to the MCP
// client), an authorization code, a bearer token and a session or interaction id, and each is refused. The same
// probes are shown to work with the live values, so a refusal means the value is not there, not that the probe is
// broken. Runs on both databases (a PostgreSQL backup or replica, the embedded database's files).
import * as oidc from 'openid-client';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowAgentUser, createAgent, createConnection, grantAgentScope } from '../../lib/organizations/agents';
import { rowsOf } from '../../lib/db/client';
import { addPermission } from '../../lib/clients/permission-catalog';
import { registerClient, validateRegistration } from '../../lib/clients/registration';
import { agentTokenRequestBody } from '../../lib/oidc/agent-token-exchange';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { authorizeMcpClient, createMember, createOrgWithApp, relyingParty, signIn, startProviderHarness, tokenRequest, type AppFixture, type Harness } from '../support/provider-harness';

const REDIRECT = 'http://127.0.0.1:45680/callback';

/** Every string in a JSON value, however deep. */
function stringsIn(value: unknown, into: Set<string>): void {
  if (typeof value === 'string') {
    into.add(value);
    // A string that is itself JSON (a payload column read as text) is searched too.
    if (/^[[{]/.test(value)) {
      try {
        stringsIn(JSON.parse(value), into);
      } catch {
        // not JSON
      }
    }
  } else if (Array.isArray(value)) for (const item of value) stringsIn(item, into);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) stringsIn(item, into);
}

describe('no usable secret at rest', () => {
  let database: TestDatabase;
  let harness: Harness;
  let vault: AppFixture;
  let config: oidc.Configuration;

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database, { refreshTokenReuseGraceSeconds: 60 });
    vault = await createOrgWithApp(database, 'Vault');
    await addPermission(database.db, vault.app.id, { scope: 'vault:read', description: 'Read the vault' });
    config = await relyingParty(harness, vault);
  });
  afterAll(async () => {
    await harness?.close();
    await database?.close();
  });

  it('after sign-ins, refreshes, MCP clients and agents, no value stored anywhere is accepted as a token', async () => {
    const person = await createMember(database, vault.orgId, 'keeper@vault.test', 'admin');

    // The app's own client: a sign-in with a refresh token (rotated, and replayed inside the grace interval, so that a
    // sealed successor is stored), and one with an opaque access token for userinfo.
    const offline = await signIn(harness, database, config, vault, { email: person.email }, { scope: 'openid offline_access', prompt: 'consent' });
    const offlineTokens = await oidc.authorizationCodeGrant(config, offline.callbackUrl!, offline.checks);
    const rotated = await oidc.refreshTokenGrant(config, offlineTokens.refresh_token!);
    expect((await oidc.refreshTokenGrant(config, offlineTokens.refresh_token!)).refresh_token).toBe(rotated.refresh_token);
    const plain = await signIn(harness, database, config, vault, { email: person.email }, { scope: 'openid email' });
    const userinfoTokens = await oidc.authorizationCodeGrant(config, plain.callbackUrl!, plain.checks);

    // An MCP client bound to the app, for the person and for an agent acting for them; refreshed once.
    const valid = validateRegistration({ client_name: 'Vault assistant', redirect_uris: [REDIRECT] });
    if ('error' in valid) throw new Error(valid.error_description);
    const mcpClientId = String((await registerClient(database.db, valid, '192.0.2.9')).client_id);
    const agent = await createAgent(database.db, { orgId: vault.orgId, name: 'Vault helper', ownerUserId: person.id });
    await allowAgentUser(database.db, agent.id, person.id);
    const mcpRefreshTokens: string[] = [];
    for (const actor of ['self', agent.id]) {
      const authorization = await authorizeMcpClient(harness, database, { clientId: mcpClientId, redirectUri: REDIRECT, resource: vault.resource, email: person.email, scope: 'mcp vault:read', actor });
      const code = authorization.callbackUrl?.searchParams.get('code');
      expect(code, authorization.callbackUrl?.href).toBeTruthy();
      const tokens = await tokenRequest(harness, mcpClientId, { grant_type: 'authorization_code', code: code!, redirect_uri: REDIRECT, code_verifier: authorization.codeVerifier });
      expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
      const refreshed = await tokenRequest(harness, mcpClientId, { grant_type: 'refresh_token', refresh_token: String(tokens.body.refresh_token) });
      expect(refreshed.status).toBe(200);
      mcpRefreshTokens.push(String(refreshed.body.refresh_token));
    }

    // An agent's own token, through its connection's signed assertion (RFC 8693).
    await grantAgentScope(database.db, { agentId: agent.id, orgId: vault.orgId, appId: vault.app.id, scope: 'vault:read' });
    const connection = await createConnection(database.db, { agentId: agent.id, orgId: vault.orgId, appId: vault.app.id, createdByUserId: person.id, connection: { mode: 'own' } });
    const exchanged = await fetch(`${harness.issuer}/oidc/token`, { method: 'POST', body: await agentTokenRequestBody(harness.keys.signingKeys, harness.issuer, connection.id) });
    expect(exchanged.status).toBe(200);

    // Every text value of every table, as a thief with a copy of the database would read it.
    const tables = rowsOf<{ table_name: string }>(
      await database.db.execute(sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`),
    ).map((row) => row.table_name);
    expect(tables).toContain('oidc_payloads');
    const values = new Set<string>();
    for (const table of tables) {
      const rows = rowsOf<{ row: unknown }>(await database.db.execute(sql`select row_to_json(t)::text as row from ${sql.identifier(table)} t`));
      for (const { row } of rows) stringsIn(row, values);
    }
    const candidates = [...values].filter((value) => value.length >= 8 && value.length <= 4096);
    expect(candidates.length).toBeGreaterThan(50);

    const basic = `Basic ${Buffer.from(`${encodeURIComponent(vault.clientId)}:${encodeURIComponent(vault.clientSecret)}`).toString('base64')}`;
    const asAppRefreshToken = (value: string) =>
      fetch(`${harness.issuer}/oidc/token`, { method: 'POST', headers: { authorization: basic }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: value }) });
    const asMcpRefreshToken = (value: string) => tokenRequest(harness, mcpClientId, { grant_type: 'refresh_token', refresh_token: value });
    const asCode = (value: string) =>
      fetch(`${harness.issuer}/oidc/token`, { method: 'POST', headers: { authorization: basic }, body: new URLSearchParams({ grant_type: 'authorization_code', code: value, redirect_uri: vault.redirectUri, code_verifier: 'x'.repeat(43) }) });
    const asBearer = (value: string) => fetch(`${harness.issuer}/oidc/me`, { headers: { authorization: `Bearer ${value}` } });
    const { provider } = harness;

    // The probes work: the live values are accepted (before the sweep, so none of them is spent by it).
    expect((await asBearer(userinfoTokens.access_token)).status).toBe(200);

    const accepted: string[] = [];
    for (const value of candidates) {
      if ((await asAppRefreshToken(value)).status === 200) accepted.push(`refresh token of the app: ${value}`);
      if ((await asMcpRefreshToken(value)).status === 200) accepted.push(`refresh token of the MCP client: ${value}`);
      if ((await asCode(value)).status === 200) accepted.push(`authorization code: ${value}`);
      if ((await asBearer(value)).status === 200) accepted.push(`bearer token: ${value}`);
      // A session cookie names its session by this id (the cookie's signature aside), an interaction its URL.
      if (await provider.Session.find(value)) accepted.push(`session: ${value}`);
      if (await provider.Interaction.find(value)) accepted.push(`interaction: ${value}`);
    }
    expect(accepted).toEqual([]);

    // And the live refresh tokens still work after it: nothing was revoked by the sweep, they were simply not there.
    expect((await asAppRefreshToken(rotated.refresh_token!)).status).toBe(200);
    for (const token of mcpRefreshTokens) expect((await asMcpRefreshToken(token)).status).toBe(200);
  });
});
