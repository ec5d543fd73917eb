// Permissions reach tokens (docs/permissions.md): an app's access token carries what was asked for and is held now,
// recomputed at every refresh — with openid-client as the app's own client, Portico's consent for an MCP client, and
// the agent token exchange. In every case the token's scope matches the explanation Portico gives for the subject.
import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowAgentUser, createAgent, createConnection, grantAgentScope } from '../../lib/organizations/agents';
import { explainPermissions } from '../../lib/organizations/effective-permissions';
import { grantPersonPermissionCommand } from '../../lib/organizations/member-commands';
import { addTeamMember, createTeam, grantTeamScope, removeTeamMember, revokeTeamScope } from '../../lib/organizations/teams';
import { addPermission, retirePermission } from '../../lib/clients/permission-catalog';
import { registerClient, validateRegistration } from '../../lib/clients/registration';
import { agentTokenRequestBody } from '../../lib/oidc/agent-token-exchange';
import { appConsentScope } from '../../lib/oidc/consent';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { authorizeMcpClient, createMember, createOrgWithApp, relyingParty, signIn, startProviderHarness, tokenRequest, type AppFixture, type Harness } from '../support/provider-harness';

const REDIRECT = 'http://127.0.0.1:45679/callback';

describe('permissions in tokens', () => {
  let database: TestDatabase;
  let harness: Harness;
  let books: AppFixture;
  let config: oidc.Configuration;

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    books = await createOrgWithApp(database, 'Books');
    for (const [scope, description] of [
      ['invoices:read', 'Read invoices'],
      ['invoices:delete', 'Delete invoices'],
      ['reports:read', 'Read reports'],
    ] as const) {
      await addPermission(database.db, books.app.id, { scope, description });
    }
    config = await relyingParty(harness, books);
  });
  afterAll(async () => {
    await harness?.close();
    await database?.close();
  });

  const unique = () => randomBytes(3).toString('hex');
  const scopeOf = (accessToken: string | undefined) => String(decodeJwt(String(accessToken)).scope ?? '');
  /** What Portico explains for the subject: the scopes the token must carry when everything is asked for. */
  const explained = async (subject: string) => ((await explainPermissions(database.db, { orgId: books.orgId, appId: books.app.id, subject }))?.permissions ?? []).map((permission) => permission.scope).join(' ');

  async function appSignIn(email: string, scope: string) {
    const attempt = await signIn(harness, database, config, books, { email }, { resource: books.resource, scope, prompt: 'consent' });
    expect(attempt.outcome.kind).toBe('continue');
    return oidc.authorizationCodeGrant(config, attempt.callbackUrl!, attempt.checks);
  }

  it('the app’s own client gets what it asks for and the person holds; later grants and removals show at the next refresh', async () => {
    const person = await createMember(database, books.orgId, `clerk-${unique()}@books.test`);
    const finance = await createTeam(database.db, { orgId: books.orgId, name: `Finance ${unique()}` });
    await addTeamMember(database.db, finance.id, person.id);
    await grantTeamScope(database.db, { teamId: finance.id, appId: books.app.id, scope: 'invoices:read' });

    const tokens = await appSignIn(person.email, 'openid offline_access invoices:read invoices:delete');
    // Asked for read and delete, holds read: read only, and the token response says so (RFC 6749 §5.1).
    expect(scopeOf(tokens.access_token)).toBe('invoices:read');
    expect(tokens.scope?.split(' ')).toContain('invoices:read');
    expect(tokens.scope?.split(' ')).not.toContain('invoices:delete');

    // A grant added appears at the next refresh; a grant that was never asked for does not.
    await grantTeamScope(database.db, { teamId: finance.id, appId: books.app.id, scope: 'invoices:delete' });
    await grantTeamScope(database.db, { teamId: finance.id, appId: books.app.id, scope: 'reports:read' });
    const widened = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(scopeOf(widened.access_token)).toBe('invoices:delete invoices:read');

    // Leaving the team takes them away at the next refresh; the baseline was not asked for, so nothing is left.
    await removeTeamMember(database.db, finance.id, person.id);
    const narrowed = await oidc.refreshTokenGrant(config, widened.refresh_token!);
    expect(scopeOf(narrowed.access_token)).toBe('');
    expect(decodeJwt(narrowed.access_token).sub).toBe(person.id);
  });

  it('a request naming none of the app’s permissions gets all the person holds, recomputed at every refresh', async () => {
    const person = await createMember(database, books.orgId, `auditor-${unique()}@books.test`);
    await grantPersonPermissionCommand({ tx: database.db, org: { id: books.orgId }, audit: async () => {} }, { userId: person.id, appId: books.app.id, scope: 'reports:read' });
    const tokens = await appSignIn(person.email, 'openid offline_access');
    expect(scopeOf(tokens.access_token)).toBe('mcp reports:read');
    expect(scopeOf(tokens.access_token)).toBe(await explained(person.email));

    // A retired permission leaves every token at the next refresh.
    const auditors = await createTeam(database.db, { orgId: books.orgId, name: `Auditors ${unique()}` });
    await addTeamMember(database.db, auditors.id, person.id);
    await addPermission(database.db, books.app.id, { scope: 'ledger:close', description: 'Close the ledger' });
    await grantTeamScope(database.db, { teamId: auditors.id, appId: books.app.id, scope: 'ledger:close' });
    const added = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(scopeOf(added.access_token)).toBe('mcp ledger:close reports:read');
    await retirePermission(database.db, books.app.id, 'ledger:close');
    const retired = await oidc.refreshTokenGrant(config, added.refresh_token!);
    expect(scopeOf(retired.access_token)).toBe('mcp reports:read');
    expect(scopeOf(retired.access_token)).toBe(await explained(person.email));

    // A request naming only the retired permission named one: it gets nothing, not everything.
    const onlyRetired = await appSignIn(person.email, 'openid ledger:close');
    expect(scopeOf(onlyRetired.access_token)).toBe('');
  });

  async function dynamicClient(): Promise<string> {
    const valid = validateRegistration({ client_name: 'Books assistant', redirect_uris: [REDIRECT] });
    if ('error' in valid) throw new Error(valid.error_description);
    return String((await registerClient(database.db, valid, '192.0.2.9')).client_id);
  }

  async function mcpTokens(clientId: string, email: string, scope: string, actor = 'self') {
    const authorization = await authorizeMcpClient(harness, database, { clientId, redirectUri: REDIRECT, resource: books.resource, email, scope, actor });
    expect(authorization.consent?.kind).toBe('continue');
    const code = authorization.callbackUrl?.searchParams.get('code');
    expect(code, authorization.callbackUrl?.href).toBeTruthy();
    const tokens = await tokenRequest(harness, clientId, { grant_type: 'authorization_code', code: code!, redirect_uri: REDIRECT, code_verifier: authorization.codeVerifier });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    return tokens.body;
  }

  it('an MCP client gets what the person consented to; more needs consent again, less shows at the next refresh', async () => {
    const person = await createMember(database, books.orgId, `keeper-${unique()}@books.test`);
    const team = await createTeam(database.db, { orgId: books.orgId, name: `Keepers ${unique()}` });
    await addTeamMember(database.db, team.id, person.id);
    await grantTeamScope(database.db, { teamId: team.id, appId: books.app.id, scope: 'invoices:read' });
    const requested = 'mcp invoices:read invoices:delete';

    // What the consent screen lists is what the grant gets: descriptions of held permissions, the rest apart.
    const screen = await appConsentScope(database.db, { appId: books.app.id, orgId: books.orgId, accountId: person.id, requestedScope: requested });
    expect(screen.granted.map((permission) => permission.description)).toEqual(['Use the app’s tools', 'Read invoices']);
    expect(screen.notHeld.map((permission) => permission.description)).toEqual(['Delete invoices']);

    const clientId = await dynamicClient();
    const first = await mcpTokens(clientId, person.email, requested);
    expect(scopeOf(first.access_token as string)).toBe('mcp invoices:read');
    expect(first.scope).toBe('mcp invoices:read');

    // Granted later: not in this client's tokens (the person never consented to it)…
    await grantTeamScope(database.db, { teamId: team.id, appId: books.app.id, scope: 'invoices:delete' });
    const refreshed = await tokenRequest(harness, clientId, { grant_type: 'refresh_token', refresh_token: String(first.refresh_token) });
    expect(scopeOf(refreshed.body.access_token as string)).toBe('mcp invoices:read');
    // …until the person consents again.
    const again = await mcpTokens(clientId, person.email, requested);
    expect(scopeOf(again.access_token as string)).toBe('mcp invoices:delete invoices:read');

    // Taken away: gone at the next refresh, consent or not.
    await revokeTeamScope(database.db, { teamId: team.id, appId: books.app.id, scope: 'invoices:read' });
    const after = await tokenRequest(harness, clientId, { grant_type: 'refresh_token', refresh_token: String(again.refresh_token) });
    expect(scopeOf(after.body.access_token as string)).toBe('mcp invoices:delete');
    expect(scopeOf(after.body.access_token as string)).toBe(await explained(person.email));
  });

  it('an agent chosen at consent acts with the person’s permissions, never more', async () => {
    const owner = await createMember(database, books.orgId, `owner-${unique()}@books.test`, 'admin');
    const person = await createMember(database, books.orgId, `delegator-${unique()}@books.test`);
    const agent = await createAgent(database.db, { orgId: books.orgId, name: `Helper ${unique()}`, ownerUserId: owner.id });
    await allowAgentUser(database.db, agent.id, person.id);
    // The agent's own grants do not widen what it may do for the person.
    await grantAgentScope(database.db, { agentId: agent.id, orgId: books.orgId, appId: books.app.id, scope: 'invoices:delete' });
    const tokens = await mcpTokens(await dynamicClient(), person.email, 'mcp invoices:read invoices:delete', agent.id);
    const claims = decodeJwt(String(tokens.access_token));
    expect(claims).toMatchObject({ sub: person.id, act: { sub: agent.id }, scope: 'mcp' });
  });

  async function exchange(connectionId: string, scope?: string) {
    const body = await agentTokenRequestBody(harness.keys.signingKeys, harness.issuer, connectionId);
    if (scope !== undefined) body.set('scope', scope);
    const response = await fetch(`${harness.issuer}/oidc/token`, { method: 'POST', body });
    const answer = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(answer)).toBe(200);
    return scopeOf(answer.access_token as string);
  }

  it('connections: own mode holds the agent’s direct grants only; delegated mode the person’s, narrowed by the connection', async () => {
    const owner = await createMember(database, books.orgId, `lead-${unique()}@books.test`, 'admin');
    const team = await createTeam(database.db, { orgId: books.orgId, name: `Leads ${unique()}` });
    await addTeamMember(database.db, team.id, owner.id);
    await grantTeamScope(database.db, { teamId: team.id, appId: books.app.id, scope: 'invoices:read' });
    await grantTeamScope(database.db, { teamId: team.id, appId: books.app.id, scope: 'invoices:delete' });

    const reader = await createAgent(database.db, { orgId: books.orgId, name: `Reader ${unique()}`, ownerUserId: owner.id });
    await grantAgentScope(database.db, { agentId: reader.id, orgId: books.orgId, appId: books.app.id, scope: 'invoices:read' });
    const own = await createConnection(database.db, { agentId: reader.id, orgId: books.orgId, appId: books.app.id, createdByUserId: owner.id, connection: { mode: 'own' } });
    // No baseline, nothing from the owner's teams: exactly the direct grant.
    expect(await exchange(own.id)).toBe('invoices:read');
    expect(await exchange(own.id)).toBe(await explained(reader.id));
    // Asking for more than held leaves it out (RFC 8693 §2.1 `scope`, RFC 6749 §3.3).
    expect(await exchange(own.id, 'invoices:read invoices:delete')).toBe('invoices:read');

    const helper = await createAgent(database.db, { orgId: books.orgId, name: `Helper ${unique()}`, ownerUserId: owner.id });
    const delegated = await createConnection(database.db, {
      agentId: helper.id,
      orgId: books.orgId,
      appId: books.app.id,
      createdByUserId: owner.id,
      connection: { mode: 'delegated', delegateUserId: owner.id, narrowedTo: ['mcp', 'invoices:read', 'reports:read'] },
    });
    // The person holds mcp, read and delete; the connection narrows to mcp and read (reports:read is not held).
    expect(await exchange(delegated.id)).toBe('mcp invoices:read');
    expect(await exchange(delegated.id)).toBe(await explained(helper.id));
  });
});
