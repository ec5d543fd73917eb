// A stock MCP client reaches every tool its person may use (issue 55, "scopes a stock client can follow"): the MCP
// SDK's own client (1.32, the legacy era) with its default OAuth handling — it asks for exactly the scope the 401
// challenge names, and on a 403 insufficient_scope it refreshes before anything else — against the example app.
// The OAuth client provider (test/support/in-memory-oauth-client.ts) only stores what the SDK hands it; the person's part (sign-in, consent) is done
// through Portico's own sign-in and consent functions. Nothing widens a scope by hand.
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2, UnauthorizedError as UnauthorizedV2, type StoredOAuthClientInformation, type StoredOAuthTokens } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../lib/organizations/organizations';
import { addTeamMember, createTeam, grantTeamScope } from '../../lib/organizations/teams';
import { createApp } from '../../lib/clients/apps';
import { addPermission } from '../../lib/clients/permission-catalog';
import { startExampleApp, type ExampleApp } from '../../examples/notes/app';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { InMemoryOAuthClient } from '../support/in-memory-oauth-client';
import { completeAuthorization, createMember, startProviderHarness, type Harness } from '../support/provider-harness';

const REDIRECT = 'http://127.0.0.1:45713/callback';
const APP_ORIGIN = 'http://127.0.0.1:4797';

/** The SDK 1.32 client's state, and the v2 client's, kept as a host keeps them. */
const stateForV1 = () => new InMemoryOAuthClient<OAuthClientInformationMixed, OAuthTokens>(REDIRECT, 'Stock SDK client');
const stateForV2 = () => new InMemoryOAuthClient<StoredOAuthClientInformation, StoredOAuthTokens>(REDIRECT, 'Stock SDK v2 client');

describe('a stock MCP client and the scopes it follows', () => {
  let database: TestDatabase;
  let harness: Harness;
  let example: ExampleApp;
  let email: string;
  let appId: string;
  let teamId: string;
  let orgId: string;

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    const org = await createOrganization(database.db, { slug: `stock-${randomBytes(3).toString('hex')}`, name: 'Stock' });
    const app = await createApp(database.db, { orgId: org.id, slug: 'notes', name: 'Notes', publishOrigin: APP_ORIGIN, redirectUris: [`${APP_ORIGIN}/callback`] });
    appId = app.app.id;
    orgId = org.id;
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
    const state = stateForV1();
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
    const again = stateForV1();
    const reconnect = new StreamableHTTPClientTransport(new URL(example.resource), { authProvider: again });
    await expect(new Client({ name: 'stock', version: '1.0.0' }).connect(reconnect)).rejects.toBeInstanceOf(UnauthorizedError);
    await reconnect.finishAuth((await completeAuthorization(harness, database, again.pending!, { email })).callbackUrl!.searchParams.get('code')!);
    expect(again.saved?.scope?.split(' ').sort()).toEqual(['mcp', 'notes:delete', 'notes:read']);
    const reconnected = new Client({ name: 'stock', version: '1.0.0' });
    await reconnected.connect(new StreamableHTTPClientTransport(new URL(example.resource), { authProvider: again }));
    expect((await reconnected.listTools()).tools.map((tool) => tool.name)).toContain('notes.delete');
    await reconnected.close();
  });

  it("the SDK v2 client, as it is: asks for the challenge's scopes, and when a tool needs a permission granted later it authorizes again for the union (its step-up), never stuck on a refresh", async () => {
    const other = await createMember(database, orgId, `v2-${randomBytes(3).toString('hex')}@example.test`);
    expect(other.id).toBeTruthy();
    const state = stateForV2();
    const connect = async () => {
      const client = new ClientV2({ name: 'stock-v2', version: '2.4.0' });
      await client.connect(new TransportV2(new URL(example.resource), { authProvider: state }));
      return client;
    };
    const authorize = async (transport: TransportV2) => {
      const answered = await completeAuthorization(harness, database, state.pending!, { email: other.email });
      state.pending = undefined;
      await transport.finishAuth(answered.callbackUrl!.searchParams);
    };
    const first = new TransportV2(new URL(example.resource), { authProvider: state });
    await expect(new ClientV2({ name: 'stock-v2', version: '2.4.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedV2);
    // (It adds offline_access, which Portico's metadata lists, to keep a refresh token.)
    expect(state.pending?.searchParams.get('scope')?.split(' ').filter((scope) => scope !== 'offline_access')).toEqual(['mcp', 'notes:read', 'notes:delete']);
    await authorize(first);
    // This person holds nothing beyond the baseline yet: mcp only, and the gated tools are not listed.
    expect(state.saved?.scope?.split(' ')).toEqual(['mcp']);
    let client = await connect();
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('notes.list');

    // Granted reading now: the call meets 403 insufficient_scope, and the client authorizes again (the union is more
    // than its token holds, so it does not refresh); once the person answers, the call goes through.
    const team = await createTeam(database.db, { orgId: orgId, name: `Later ${randomBytes(2).toString('hex')}` });
    await addTeamMember(database.db, team.id, other.id);
    await grantTeamScope(database.db, { teamId: team.id, appId, scope: 'notes:read' });
    await expect(client.callTool({ name: 'notes.list', arguments: {} })).rejects.toBeInstanceOf(UnauthorizedV2);
    expect(state.pending?.searchParams.get('scope')?.split(' ')).toContain('notes:read');
    await client.close();
    const again = new TransportV2(new URL(example.resource), { authProvider: state });
    await authorize(again);
    expect(state.saved?.scope?.split(' ').sort()).toEqual(['mcp', 'notes:read']);
    client = await connect();
    expect((await client.callTool({ name: 'notes.list', arguments: {} })).isError).toBeFalsy();
    await client.close();
  });
});
