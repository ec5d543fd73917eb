// Per-person OAuth to an upstream (issue 58): the MCP SDK's own example server with its demo OAuth behind Portico.
// Portico registers itself there (RFC 7591), each person connects their own account (authorization code + PKCE; the
// demo authorization server approves at once, so the test follows its redirect as a browser would), calls carry that
// person's token and nobody else's, and leaving the organization or disconnecting ends the connection.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2, UnauthorizedError as UnauthorizedV2, type StoredOAuthClientInformation, type StoredOAuthTokens } from '@modelcontextprotocol/client';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../lib/accounts/users';
import { gatewayConnections, gatewayServers, outboundDeliveries } from '../../lib/db/schema';
import { upstreamRevocationDelivery } from '../../lib/deliveries/channels/upstream-revocation';
import { addServerFromUpstream, refreshServerTools, type GatewayDoorDeps } from '../../lib/gateway/doors';
import { approveGatewayTool, gatewayToolsOf, setGatewayCredential, type GatewayServer } from '../../lib/gateway/servers';
import { beginUpstreamConnection, completeUpstreamConnection, disconnectUpstream, GATEWAY_CALLBACK_PATH, UpstreamOAuthClient } from '../../lib/gateway/upstream-oauth';
import { encryptAtRest } from '../../lib/security/at-rest';
import { removeMember } from '../../lib/organizations/memberships';
import { createOrganization, type Organization } from '../../lib/organizations/organizations';
import { runOrgOperation } from '../../lib/organizations/org-operation';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { serveGatewayServer } from '../support/gateway';
import { InMemoryOAuthClient } from '../support/in-memory-oauth-client';
import { completeAuthorization, createMember, startProviderHarness, type Harness } from '../support/provider-harness';
import { startSdkOAuthExample, type EverythingServer } from '../support/upstreams';

const REDIRECT = 'http://127.0.0.1:45721/callback';
const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? '';

describe('the gateway in front of an OAuth-protected upstream', () => {
  let database: TestDatabase;
  let harness: Harness;
  let upstream: EverythingServer & { authorizationServer: string };
  let org: Organization;
  let owner: User;
  let member: User;
  let server: GatewayServer;
  const routes: Record<string, (request: Request) => Promise<Response>> = {};
  const atRestKey = randomBytes(32);
  let doors: GatewayDoorDeps;
  const oauth = () => doors;

  /** The person's browser: Portico sends it to the upstream's authorization server, which answers at once. */
  async function connect(person: User): Promise<void> {
    const url = await beginUpstreamConnection(database.db, server, person.id, oauth());
    expect(url?.origin).toBe(upstream.authorizationServer);
    const answered = await fetch(url!, { redirect: 'manual' });
    const callback = new URL(answered.headers.get('location')!);
    expect(`${callback.origin}${callback.pathname}`).toBe(`${harness.issuer}${GATEWAY_CALLBACK_PATH}`);
    await completeUpstreamConnection(database.db, person.id, { state: callback.searchParams.get('state')!, code: callback.searchParams.get('code')! }, oauth());
  }

  async function stockClient(person: User): Promise<Client> {
    const state = new InMemoryOAuthClient<OAuthClientInformationMixed, OAuthTokens>(REDIRECT, 'Stock SDK client');
    const first = new StreamableHTTPClientTransport(new URL(server.resource), { authProvider: state });
    await expect(new Client({ name: 'stock', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    await first.finishAuth((await completeAuthorization(harness, database, state.pending!, { email: person.email })).callbackUrl!.searchParams.get('code')!);
    const client = new Client({ name: 'stock', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.resource), { authProvider: state }));
    return client;
  }

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database, { routes });
    upstream = await startSdkOAuthExample();
    org = await createOrganization(database.db, { slug: `gwo-${randomBytes(3).toString('hex')}`, name: 'Gateway OAuth' });
    owner = await createMember(database, org.id, `owner-${randomBytes(3).toString('hex')}@gateway.test`, 'owner');
    member = await createMember(database, org.id, `member-${randomBytes(3).toString('hex')}@gateway.test`);
    doors = { issuer: harness.issuer, atRestKey, outboundPolicy: { allowLoopback: true } };
    const added = await addServerFromUpstream(database.db, { org, role: 'owner', actor: { person: owner, ip: '192.0.2.1', door: 'console' } }, { name: 'SDK example', url: upstream.url }, doors);
    expect(added.oauth).toBe(true);
    server = added.server;
    serveGatewayServer(routes, server, { database, harness, atRestKey, clientIp: '192.0.2.60' });
  }, 60_000);
  afterAll(async () => {
    await upstream?.close();
    await harness?.close();
    await database?.close();
  });

  it('adds an upstream that asks for OAuth as one each person connects to, and reads its tools with the admin’s own account', async () => {
    expect(server).toMatchObject({ credentialKind: 'oauth', credentialSealed: null });
    expect(await gatewayToolsOf(database.db, server.id)).toEqual([]);
    // Reading needs a person's account: the admin has not connected yet.
    const scope = { org, role: 'owner' as const, actor: { person: owner, ip: '192.0.2.1', door: 'console' as const } };
    await expect(refreshServerTools(database.db, scope, server, doors)).rejects.toMatchObject({ code: 'upstream_refused' });
    await connect(owner);
    // Portico registered itself there once (RFC 7591): its registration is sealed, shared by every person.
    const [row] = await database.db.select().from(gatewayServers).where(eq(gatewayServers.id, server.id));
    expect(row!.oauthClientSealed).toMatch(/^ey/);
    server = row!;
    const read = await refreshServerTools(database.db, scope, server, doors);
    expect(read.added).toContain('greet');
    const greet = (await gatewayToolsOf(database.db, server.id)).find((tool) => tool.name === 'greet')!;
    await runOrgOperation(database.db, { org, role: null, actor: { door: 'cli', operator: 'test' } }, { audit: 'exactly_one' }, (ctx) => approveGatewayTool(ctx, server, { tool: 'greet', digest: greet.offeredDigest, approvedBy: owner.id }));
  });

  it('calls with the person’s own account; someone who has not connected is told where to connect, and nothing is sent', async () => {
    const ownerClient = await stockClient(owner);
    expect(text(await ownerClient.callTool({ name: 'greet', arguments: { name: 'Ada' } }))).toBe('Hello, Ada!');
    await ownerClient.close();
    const memberClient = await stockClient(member);
    const refused = await memberClient.callTool({ name: 'greet', arguments: { name: 'Bob' } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain(`${harness.issuer}/console/gateway/connect/${server.id}`);
    await connect(member);
    expect(text(await memberClient.callTool({ name: 'greet', arguments: { name: 'Bob' } }))).toBe('Hello, Bob!');
    await memberClient.close();
  });

  it('offers the connect page inside a 2026-07-28 client that can open one, and the call goes on once the person has connected', async () => {
    const newcomer = await createMember(database, org.id, `newcomer-${randomBytes(3).toString('hex')}@gateway.test`);
    const state = new InMemoryOAuthClient<StoredOAuthClientInformation, StoredOAuthTokens>(REDIRECT, 'Stock SDK v2 client');
    const options = { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: 'auto' as const } };
    const first = new TransportV2(new URL(server.resource), { authProvider: state });
    await expect(new ClientV2({ name: 'stock-v2', version: '2.4.0' }, options).connect(first)).rejects.toBeInstanceOf(UnauthorizedV2);
    await first.finishAuth((await completeAuthorization(harness, database, state.pending!, { email: newcomer.email })).callbackUrl!.searchParams);
    const client = new ClientV2({ name: 'stock-v2', version: '2.4.0' }, options);
    const offered: string[] = [];
    let answer: 'connect' | 'decline' = 'decline';
    client.setRequestHandler('elicitation/create', async (request) => {
      offered.push((request.params as { url?: string }).url ?? '');
      if (answer === 'decline') return { action: 'decline' };
      // The client opens the page; the person connects their account at the upstream there (played here).
      await connect(newcomer);
      return { action: 'accept' };
    });
    await client.connect(new TransportV2(new URL(server.resource), { authProvider: state }));
    // Declined: refused with where to connect; nothing reached the upstream.
    const declined = await client.callTool({ name: 'greet', arguments: { name: 'Cy' } });
    expect(declined.isError).toBe(true);
    expect(text(declined)).toContain(`/console/gateway/connect/${server.id}`);
    expect(offered).toEqual([`${harness.issuer}/console/gateway/connect/${server.id}`]);
    answer = 'connect';
    expect(text(await client.callTool({ name: 'greet', arguments: { name: 'Cy' } }))).toBe('Hello, Cy!');
    await client.close();
  });

  it('accepts an authorization’s answer once, only for the person who started it', async () => {
    await disconnectUpstream(database.db, server.id, member.id);
    const started = await beginUpstreamConnection(database.db, server, member.id, oauth());
    const callback = new URL((await fetch(started!, { redirect: 'manual' })).headers.get('location')!);
    const answer = { state: callback.searchParams.get('state')!, code: callback.searchParams.get('code')! };
    await expect(completeUpstreamConnection(database.db, owner.id, answer, oauth())).rejects.toMatchObject({ code: 'invalid' });
    await completeUpstreamConnection(database.db, member.id, answer, oauth());
    await expect(completeUpstreamConnection(database.db, member.id, answer, oauth())).rejects.toMatchObject({ code: 'invalid' });
  });

  it('keeps an OAuth server’s accounts each person’s own: no shared credential, and a refresh in flight never brings back an ended connection', async () => {
    const scope = { org, role: null, actor: { door: 'cli' as const, operator: 'test' } };
    await expect(runOrgOperation(database.db, scope, { audit: 'exactly_one' }, (ctx) => setGatewayCredential(ctx, server, { header: 'X-Api-Key', value: 'shared' }, atRestKey))).rejects.toMatchObject({ code: 'conflict' });
    await expect(runOrgOperation(database.db, scope, { audit: 'exactly_one' }, (ctx) => setGatewayCredential(ctx, server, null, atRestKey))).rejects.toMatchObject({ code: 'conflict' });
    const ghost = await createMember(database, org.id, `ghost-${randomBytes(3).toString('hex')}@gateway.test`);
    await new UpstreamOAuthClient(database.db, server, ghost.id, { issuer: harness.issuer, atRestKey }).saveTokens({ access_token: 'late', token_type: 'bearer' });
    expect(await database.db.select().from(gatewayConnections).where(and(eq(gatewayConnections.serverId, server.id), eq(gatewayConnections.userId, ghost.id)))).toHaveLength(0);
  });

  it('ends a person’s connection when they leave the organization', async () => {
    const held = () => database.db.select().from(gatewayConnections).where(and(eq(gatewayConnections.serverId, server.id), eq(gatewayConnections.userId, member.id)));
    expect(await held()).toHaveLength(1);
    await database.db.transaction((tx) => removeMember(tx as never, org.id, member.id));
    expect(await held()).toHaveLength(0);
  });

  it('revokes the tokens Portico let go of at the authorization server’s revocation endpoint (RFC 7009), sealed until sent', async () => {
    const received: URLSearchParams[] = [];
    const receiver: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push(new URLSearchParams(body));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/revoke`;
    const refreshToken = `rt-${randomBytes(8).toString('hex')}`;
    await database.db
      .update(gatewayConnections)
      .set({ revocationEndpoint: endpoint, tokensSealed: await encryptAtRest(JSON.stringify({ access_token: 'at', token_type: 'bearer', refresh_token: refreshToken }), atRestKey) })
      .where(and(eq(gatewayConnections.serverId, server.id), eq(gatewayConnections.userId, owner.id)));
    expect(await disconnectUpstream(database.db, server.id, owner.id)).toBe(true);
    const [delivery] = await database.db.select().from(outboundDeliveries).where(eq(outboundDeliveries.channel, 'upstream_revocation'));
    expect(JSON.stringify(delivery)).not.toContain(refreshToken);
    await upstreamRevocationDelivery({ atRestKey, outbound: { allowLoopback: true } })(delivery!);
    expect(received).toHaveLength(1);
    expect(Object.fromEntries(received[0]!)).toMatchObject({ token: refreshToken, token_type_hint: 'refresh_token' });
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });
});
