// A stock MCP client reaches every tool its person may use (issue 55, "scopes a stock client can follow"): the MCP
// SDK's own client (1.32, the legacy era) with its default OAuth handling — it asks for exactly the scope the 401
// challenge names, and on a 403 insufficient_scope it refreshes before anything else — against the example app.
// The OAuth client provider below only stores what the SDK hands it; the person's part (sign-in, consent) is done
// through Portico's own sign-in and consent functions. Nothing widens a scope by hand.
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../lib/accounts/organizations';
import { addTeamMember, createTeam, grantTeamScope } from '../../lib/accounts/teams';
import { createApp } from '../../lib/clients/apps';
import { addPermission } from '../../lib/clients/permission-catalog';
import { startExampleApp, type ExampleApp } from '../../examples/notes/app';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { completeAuthorization, createMember, startProviderHarness, type Harness } from '../support/provider-harness';

const REDIRECT = 'http://127.0.0.1:45713/callback';
const APP_ORIGIN = 'http://127.0.0.1:4797';

/** What an MCP host keeps for the SDK: exactly what it was given, nothing decided here. */
class StoredOAuthState implements OAuthClientProvider {
  information?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  pending?: URL;
  readonly redirectUrl = REDIRECT;
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Stock SDK client', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.pending = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier!;
  }
}

describe('a stock MCP client and the scopes it follows', () => {
  let database: TestDatabase;
  let harness: Harness;
  let example: ExampleApp;
  let email: string;
  let appId: string;
  let teamId: string;

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    const org = await createOrganization(database.db, { slug: `stock-${randomBytes(3).toString('hex')}`, name: 'Stock' });
    const app = await createApp(database.db, { orgId: org.id, slug: 'notes', name: 'Notes', publishOrigin: APP_ORIGIN, redirectUris: [`${APP_ORIGIN}/callback`] });
    appId = app.app.id;
    for (const [scope, description] of [
      ['notes:read', 'Read notes'],
      ['notes:delete', 'Delete notes'],
    ] as const) {
      await addPermission(database.db, appId, { scope, description });
    }
    email = `stock-${randomBytes(3).toString('hex')}@example.test`;
    const person = await createMember(database, org.id, email);
    // The person reads notes (through a team); deleting is not theirs yet.
    const team = await createTeam(database.db, { orgId: org.id, name: 'Readers' });
    teamId = team.id;
    await addTeamMember(database.db, team.id, person.id);
    await grantTeamScope(database.db, { teamId: team.id, appId, scope: 'notes:read' });
    example = await startExampleApp({ origin: APP_ORIGIN, issuer: harness.issuer, appIdentity: app.app.identity });
  });
  afterAll(async () => {
    await example?.close();
    await harness?.close();
    await database?.close();
  });

  it('asks for the scopes the challenge names and lists and calls the tools the person may use; a permission granted later is asked for by authorizing again, never by a refresh', async () => {
    const state = new StoredOAuthState();
    const first = new StreamableHTTPClientTransport(new URL(example.resource), { authProvider: state });
    await expect(new Client({ name: 'stock', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    // The SDK asked for what the 401 named: every scope the app's tools need (the token carries those the person holds).
    expect(state.pending?.searchParams.get('scope')?.split(' ')).toEqual(['mcp', 'notes:read', 'notes:delete']);
    const answered = await completeAuthorization(harness, database, state.pending!, { email });
    await first.finishAuth(answered.callbackUrl!.searchParams.get('code')!);
    expect(state.saved?.scope?.split(' ').sort()).toEqual(['mcp', 'notes:read']);

    const client = new Client({ name: 'stock', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(example.resource), { authProvider: state }));
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('notes.list');
    expect(names).not.toContain('notes.delete');
    expect((await client.callTool({ name: 'notes.list', arguments: {} })).isError).toBeFalsy();

    // An admin grants deleting. The person consented to what they held then, and a refresh never widens a consent:
    // the SDK's upscoping (a refresh) gets the same scopes and it stops. Authorizing again (a host reconnecting)
    // shows the consent screen with the new permission and reaches the tool.
    await grantTeamScope(database.db, { teamId, appId, scope: 'notes:delete' });
    await expect(client.callTool({ name: 'notes.delete', arguments: { id: 'nothing-here' } })).rejects.toThrow(/403/);
    await client.close();
    const again = new StoredOAuthState();
    const reconnect = new StreamableHTTPClientTransport(new URL(example.resource), { authProvider: again });
    await expect(new Client({ name: 'stock', version: '1.0.0' }).connect(reconnect)).rejects.toBeInstanceOf(UnauthorizedError);
    await reconnect.finishAuth((await completeAuthorization(harness, database, again.pending!, { email })).callbackUrl!.searchParams.get('code')!);
    expect(again.saved?.scope?.split(' ').sort()).toEqual(['mcp', 'notes:delete', 'notes:read']);
    const reconnected = new Client({ name: 'stock', version: '1.0.0' });
    await reconnected.connect(new StreamableHTTPClientTransport(new URL(example.resource), { authProvider: again }));
    expect((await reconnected.listTools()).tools.map((tool) => tool.name)).toContain('notes.delete');
    await reconnected.close();
  });
});
