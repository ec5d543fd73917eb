// The clean-up of dynamically registered clients, and what an MCP client does about it: the MCP SDK's own client
// registers (RFC 7591), is authorized and calls the example app's tools; its first and latest use are recorded; a
// registration never used is removed after 24 hours, a client unused for 90 days is removed (audited in the
// organization whose app it reached). The removed client's refresh gets 401 invalid_client (RFC 6749 §5.2), so the
// SDK registers again and carries on. Time moves by the instant handed to the clean-up, never by waiting.
import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../lib/organizations/organizations';
import { createApp, type CreatedApp } from '../../lib/clients/apps';
import { IDLE_CLIENT_DAYS, removeAbandonedDynamicClients } from '../../lib/clients/cleanup';
import { listOrgClients } from '../../lib/clients/external';
import { auditEvents, clients } from '../../lib/db/schema';
import { startExampleApp, type ExampleApp } from '../../examples/notes/app';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { InMemoryOAuthClient } from '../support/in-memory-oauth-client';
import { completeAuthorization, createMember, startProviderHarness, type Harness } from '../support/provider-harness';

const REDIRECT = 'http://127.0.0.1:45712/callback';
const APP_ORIGIN = 'http://127.0.0.1:4795';
const DAY = 24 * 60 * 60 * 1000;

/** An MCP client's OAuth state, in memory; the "browser" is the test, which answers the authorization itself. */
class HeadlessClient extends InMemoryOAuthClient<OAuthClientInformationMixed, OAuthTokens> {
  constructor() {
    super(REDIRECT, 'Clean-up test client');
  }
}

describe('dynamic registration clean-up and re-registration', () => {
  let database: TestDatabase;
  let harness: Harness;
  let app: CreatedApp & { orgId: string };
  let example: ExampleApp;
  let email: string;

  /** Connects through the SDK; an authorization it starts is answered by the person, then it connects again. */
  async function connect(provider: HeadlessClient): Promise<Client> {
    const first = new StreamableHTTPClientTransport(new URL(example.resource), { authProvider: provider });
    const client = new Client({ name: 'cleanup-test', version: '1.0.0' });
    try {
      await client.connect(first);
      return client;
    } catch (error) {
      if (!(error instanceof UnauthorizedError) || !provider.pending) throw error;
    }
    const answered = await completeAuthorization(harness, database, provider.pending, { email });
    provider.pending = undefined;
    await first.finishAuth(answered.callbackUrl!.searchParams.get('code')!);
    const connected = new Client({ name: 'cleanup-test', version: '1.0.0' });
    await connected.connect(new StreamableHTTPClientTransport(new URL(example.resource), { authProvider: provider }));
    return connected;
  }

  const register = async () =>
    (await (await fetch(`${harness.issuer}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Never used', redirect_uris: [REDIRECT] }) })).json()) as { client_id: string };
  const exists = async (clientId: string) => (await database.db.select({ id: clients.id }).from(clients).where(eq(clients.id, clientId))).length === 1;

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    const org = await createOrganization(database.db, { slug: `cleanup-${randomBytes(3).toString('hex')}`, name: 'Clean-up' });
    app = { ...(await createApp(database.db, { orgId: org.id, slug: 'notes', name: 'Notes', publishOrigin: APP_ORIGIN, redirectUris: [`${APP_ORIGIN}/callback`] })), orgId: org.id };
    email = `cleanup-${randomBytes(3).toString('hex')}@example.test`;
    const person = await createMember(database, org.id, email);
    expect(person.id).toBeTruthy();
    example = await startExampleApp({ origin: APP_ORIGIN, issuer: harness.issuer, appIdentity: app.app.identity });
  });
  afterAll(async () => {
    await example?.close();
    await harness?.close();
    await database?.close();
  });

  it('records a client’s first and latest use, removes a registration never used after 24 hours, and keeps one in use', async () => {
    const provider = new HeadlessClient();
    const client = await connect(provider);
    expect((await client.callTool({ name: 'notes.add', arguments: { title: 'One', body: 'first' } })).isError).toBeFalsy();
    await client.close();
    const used = provider.registered[0]!;
    const [row] = await database.db.select().from(clients).where(eq(clients.id, used));
    expect(row!.firstUsedAt).toBeInstanceOf(Date);
    expect(row!.lastUsedAt).toBeInstanceOf(Date);
    expect(row!.metadata.application_type).toBe('native');
    const [listed] = (await listOrgClients(database.db, app.orgId)).filter((entry) => entry.clientId === used);
    expect(listed).toMatchObject({ kind: 'dynamic', firstUsedAt: expect.any(Date), lastUsedAt: expect.any(Date) });

    const abandoned = await register();
    // 23 hours on: both stay.
    expect(await removeAbandonedDynamicClients(database.db, new Date(Date.now() + DAY - 60 * 60 * 1000))).toMatchObject({ neverUsed: 0 });
    expect(await exists(abandoned.client_id)).toBe(true);
    // 25 hours on: the one never used goes, with one summary event; the one in use stays.
    const report = await removeAbandonedDynamicClients(database.db, new Date(Date.now() + DAY + 60 * 60 * 1000));
    expect(report.neverUsed).toBeGreaterThanOrEqual(1);
    expect(await exists(abandoned.client_id)).toBe(false);
    expect(await exists(used)).toBe(true);
    const [summary] = await database.db.select().from(auditEvents).where(eq(auditEvents.action, 'client.registrations_removed'));
    expect((summary!.details as { clientIds: string[] }).clientIds).toContain(abandoned.client_id);

    // What keeps a client is its recorded use, not its consent: registered 100 days ago and used now, it stays.
    await database.db.update(clients).set({ createdAt: new Date(Date.now() - 100 * DAY) }).where(eq(clients.id, used));
    await removeAbandonedDynamicClients(database.db, new Date(Date.now() + DAY));
    expect(await exists(used)).toBe(true);
  });

  it('removes a client unused for 90 days (audited in the organization), and the SDK registers again on 401 invalid_client', async () => {
    const provider = new HeadlessClient();
    const client = await connect(provider);
    await client.close();
    const oldClientId = provider.registered.at(-1)!;
    const refreshToken = provider.saved!.refresh_token!;

    // 89 days on it stays; 91 days on it goes.
    await removeAbandonedDynamicClients(database.db, new Date(Date.now() + (IDLE_CLIENT_DAYS - 1) * DAY));
    expect(await exists(oldClientId)).toBe(true);
    const report = await removeAbandonedDynamicClients(database.db, new Date(Date.now() + (IDLE_CLIENT_DAYS + 1) * DAY));
    expect(report.idle).toBeGreaterThanOrEqual(1);
    expect(await exists(oldClientId)).toBe(false);
    const [removal] = await database.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'client.removed_unused'), eq(auditEvents.clientId, oldClientId)));
    expect(removal).toMatchObject({ orgId: app.orgId, actorType: 'system', subjectId: oldClientId });

    // The token endpoint says the client is unknown with 401 invalid_client (not 400), as RFC 6749 §5.2 has it.
    const refreshed = await fetch(`${harness.issuer}/oidc/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: oldClientId }) });
    expect(refreshed.status).toBe(401);
    expect(await refreshed.json()).toMatchObject({ error: 'invalid_client' });

    // The SDK's access token runs out: it refreshes, hears invalid_client, forgets the client, registers again and
    // sends the person to authorize; then it carries on with the new client.
    provider.saved = { ...provider.saved!, access_token: 'expired.access.token' };
    const again = await connect(provider);
    expect(provider.invalidated).toContain('all');
    expect(provider.registered).toHaveLength(2);
    expect(provider.registered[1]).not.toBe(oldClientId);
    expect((await again.callTool({ name: 'notes.add', arguments: { title: 'Two', body: 'after re-registering' } })).isError).toBeFalsy();
    await again.close();
  });
});
