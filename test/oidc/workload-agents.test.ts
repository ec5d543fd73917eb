// Agents that run as workloads (issue 59), against two Portico instances on one database and the example app:
// - key credentials: openid-client's client-credentials grant with private_key_jwt, and the MCP SDK's own
//   PrivateKeyJwtProvider (its stock client-credentials support) calling the example app's tools;
// - workload identity federation: a local issuer that signs tokens shaped exactly like Kubernetes projected
//   service-account tokens (RS256) and SPIFFE JWT-SVIDs (ES256, no `iss`), presented with the jwt-bearer grant
//   through openid-client, then used by the MCP SDK's client; another namespace, another audience, an expired, a
//   too-long-lived and a replayed token are refused, and one token presented on both instances at once gives
//   exactly one access token;
// - disabling the agent refuses its next token request on both instances and queues RISC account-disabled to its
//   app's stream; its owner leaving with no sponsor suspends it, and the ticker mails the owners and admins.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import * as oidc from 'openid-client';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { Client as StockClient, PrivateKeyJwtProvider, StreamableHTTPClientTransport as StockTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../lib/clients/apps';
import { addPermission } from '../../lib/clients/permission-catalog';
import { agents, auditEvents, outboundDeliveries } from '../../lib/db/schema';
import { createAgent, createConnection, grantAgentScope } from '../../lib/organizations/agents';
import { agentCommands, type AgentCommandContext, type WorkloadDeps } from '../../lib/organizations/agent-commands';
import { removeMemberCommand } from '../../lib/organizations/member-commands';
import { removeTeamMemberCommand } from '../../lib/organizations/team-commands';
import { runOrgOperation } from '../../lib/organizations/org-operation';
import { createOrganization } from '../../lib/organizations/organizations';
import { addTeamMember, createTeam } from '../../lib/organizations/teams';
import { forgetRemoteKeys } from '../../lib/security/remote-keys';
import { handlePollRequest, handleStreamsRequest, type SsfContext } from '../../lib/ssf/streams';
import { securityEventPushDelivery, securityEventSigner } from '../../lib/deliveries/channels/security-event';
import { deliverDue } from '../../lib/deliveries/outbox';
import { SSF_EVENT_TYPES } from '../../lib/ssf/events';
import { runTicker } from '../../lib/notifications/ticker';
import { WORKLOAD_CLIENT_ID, WORKLOAD_PRESENTATIONS_PER_NETWORK } from '../../lib/oidc/workload-grants';
import { hitRateLimit } from '../../lib/rate-limit/fixed-window';
import type { User } from '../../lib/accounts/users';
import { startExampleApp, type ExampleApp } from '../../examples/notes/app';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { serveGatewayServer, type HarnessRoutes } from '../support/gateway';
import { startEverything, type EverythingServer } from '../support/upstreams';
import { addServerFromUpstream } from '../../lib/gateway/doors';
import { approveGatewayTool, gatewayToolsOf, type GatewayServer } from '../../lib/gateway/servers';
import { createMember, startProviderHarness, type Harness } from '../support/provider-harness';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const APP_ORIGIN = 'http://127.0.0.1:4811';

/** A Kubernetes cluster's service-account issuer, on loopback: its discovery document and JWKS, and tokens shaped as the TokenRequest API projects them. */
interface ClusterIssuer {
  issuer: string;
  jwksUri: string;
  token(claims?: { namespace?: string; serviceAccount?: string; audience?: string | string[]; lifetimeSeconds?: number; issuedAgoSeconds?: number }): Promise<string>;
  close(): Promise<void>;
}

async function startClusterIssuer(): Promise<ClusterIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { modulusLength: 2048 });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'cluster-key-1', alg: 'RS256', use: 'sig' };
  let origin = '';
  const server: Server = createServer((req, res) => {
    if (req.url === '/openid/v1/jwks') {
      res.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify({ keys: [jwk] }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer: origin,
    jwksUri: `${origin}/openid/v1/jwks`,
    async token(claims = {}) {
      const namespace = claims.namespace ?? 'payments';
      const serviceAccount = claims.serviceAccount ?? 'invoicer';
      const now = Math.floor(Date.now() / 1000) - (claims.issuedAgoSeconds ?? 0);
      // Kubernetes' projected service-account token (KEP-1205 / the TokenRequest API): these claims, RS256, a kid.
      return new SignJWT({
        'kubernetes.io': {
          namespace,
          node: { name: 'node-a', uid: randomUUID() },
          pod: { name: `${serviceAccount}-7d9f8b-x2x4q`, uid: randomUUID() },
          serviceaccount: { name: serviceAccount, uid: randomUUID() },
        },
      })
        .setProtectedHeader({ alg: 'RS256', kid: 'cluster-key-1' })
        .setIssuer(origin)
        .setSubject(`system:serviceaccount:${namespace}:${serviceAccount}`)
        .setAudience(claims.audience ?? [])
        .setIssuedAt(now)
        .setNotBefore(now)
        .setExpirationTime(now + (claims.lifetimeSeconds ?? 3600))
        .setJti(randomUUID())
        .sign(privateKey);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('agents that run as workloads', () => {
  let database: TestDatabase;
  let first: Harness;
  let second: Harness;
  let cluster: ClusterIssuer;
  let exampleApp: ExampleApp;
  let owner: User;
  let orgId: string;
  let appId: string;
  let agentId: string;
  let resource: string;
  let appIdentity: string;
  let appClientId: string;
  let appClientSecret: string;
  let agentPrivateKey: CryptoKey;
  let agentPublicJwk: JWK;
  let deps: WorkloadDeps;
  const routes: HarnessRoutes = {};

  const asOwner = <T>(work: (ctx: AgentCommandContext) => Promise<T>, audited: 'exactly_one' | 'none' = 'exactly_one') =>
    runOrgOperation(database.db, { org: { id: orgId, slug: 'workloads', name: 'Workloads' } as never, role: 'owner', actor: { person: owner, ip: '192.0.2.1', door: 'console' } }, { audit: audited }, ({ tx, audit }) =>
      work({ tx, org: { id: orgId, slug: 'workloads', name: 'Workloads' }, person: owner, audit }),
    );

  /** The jwt-bearer grant as SEP-1933 profiles it, through openid-client (public client portico-workload). */
  async function presentWorkloadToken(harness: Harness, assertion: string, extra: Record<string, string> = {}): Promise<oidc.TokenEndpointResponse> {
    const config = await oidc.discovery(new URL(harness.issuer), WORKLOAD_CLIENT_ID, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    return oidc.genericGrantRequest(config, JWT_BEARER, { assertion, resource, ...extra });
  }

  /** The client-credentials grant with private_key_jwt, through openid-client. */
  async function clientCredentials(harness: Harness, key = agentPrivateKey, parameters: Record<string, string> = { resource }): Promise<oidc.TokenEndpointResponse> {
    const config = await oidc.discovery(new URL(harness.issuer), agentId, { token_endpoint_auth_signing_alg: 'ES256' }, oidc.PrivateKeyJwt(key), { execute: [oidc.allowInsecureRequests] });
    return oidc.clientCredentialsGrant(config, parameters);
  }

  /** Both instances' issuers: in production they share one; here each harness has its own port. */
  const instances = () => [first.issuer, second.issuer];

  const refusal = async (work: Promise<unknown>): Promise<{ error?: string; error_description?: string }> => {
    try {
      await work;
    } catch (error) {
      const cause = (error as { cause?: Record<string, string> }).cause;
      return { error: cause?.error ?? (error as { error?: string }).error, error_description: cause?.error_description ?? (error as { error_description?: string }).error_description };
    }
    throw new Error('expected a refusal');
  };

  beforeAll(async () => {
    database = await openTestDatabase();
    const secretKey = new Uint8Array(32).fill(7);
    first = await startProviderHarness(database, { outboundAllowLoopback: true, secretKey, routes });
    second = await startProviderHarness(database, { outboundAllowLoopback: true, secretKey });
    deps = { issuer: first.issuer, outbound: { allowLoopback: true } };
    cluster = await startClusterIssuer();
    const org = await createOrganization(database.db, { slug: `workloads-${randomUUID().slice(0, 8)}`, name: 'Workloads' });
    orgId = org.id;
    owner = await createMember(database, orgId, `owner-${randomUUID().slice(0, 6)}@workloads.test`, 'owner');
    const created = await createApp(database.db, { orgId, slug: 'notes', name: 'Notes', publishOrigin: APP_ORIGIN, redirectUris: [`${APP_ORIGIN}/callback`] });
    appId = created.app.id;
    appIdentity = created.app.identity;
    appClientId = created.clientId;
    appClientSecret = created.clientSecret;
    resource = `${APP_ORIGIN}/api/mcp`;
    await addPermission(database.db, appId, { scope: 'notes:read', description: 'Read notes' });
    await addPermission(database.db, appId, { scope: 'notes:delete', description: 'Delete notes' });
    const agent = await createAgent(database.db, { orgId, name: 'Invoicer', ownerUserId: owner.id });
    agentId = agent.id;
    await grantAgentScope(database.db, { agentId, orgId, appId, scope: 'mcp' });
    await grantAgentScope(database.db, { agentId, orgId, appId, scope: 'notes:read' });
    await createConnection(database.db, { agentId, orgId, appId, createdByUserId: owner.id, connection: { mode: 'own' } });
    const pair = await generateKeyPair('ES256', { extractable: true });
    agentPrivateKey = pair.privateKey;
    agentPublicJwk = await exportJWK(pair.publicKey);
    exampleApp = await startExampleApp({ origin: APP_ORIGIN, issuer: first.issuer, appIdentity, clientId: appClientId });
  });

  afterAll(async () => {
    await exampleApp?.close();
    await cluster?.close();
    await first?.close();
    await second?.close();
    await database?.close();
  });

  it('announces the client-credentials and jwt-bearer grants and private_key_jwt', async () => {
    const metadata = (await (await fetch(`${first.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, string[]>;
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining(['client_credentials', JWT_BEARER]));
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['private_key_jwt', 'none']));
  });

  describe('key credentials', () => {
    it('refuses a private key, and registers the public one', async () => {
      const privateJwk = await exportJWK(agentPrivateKey);
      await expect(asOwner((ctx) => agentCommands.addKey(ctx, { agentId, publicKey: JSON.stringify(privateJwk) }))).rejects.toMatchObject({ field: 'publicKey', text: { key: 'refusals.agents.key.private' } });
      const { key } = await asOwner((ctx) => agentCommands.addKey(ctx, { agentId, publicKey: JSON.stringify(agentPublicJwk) }));
      expect(key).toMatchObject({ alg: 'ES256', agentId });
      expect(key.publicJwk).not.toHaveProperty('d');
    });

    it('openid-client gets the agent’s own token: sub the agent, its direct grants, ten minutes, no refresh or ID token, audited', async () => {
      const tokens = await clientCredentials(first, agentPrivateKey, { resource, scope: 'mcp notes:read notes:delete' });
      expect(tokens.refresh_token).toBeUndefined();
      expect(tokens.id_token).toBeUndefined();
      expect(tokens.scope).toBe('mcp notes:read');
      const claims = decodeJwt(tokens.access_token);
      expect(claims).toMatchObject({ sub: agentId, aud: appIdentity, org: orgId, client_id: agentId, scope: 'mcp notes:read' });
      expect(claims.act).toBeUndefined();
      expect((claims.exp as number) - (claims.iat as number)).toBeLessThanOrEqual(600);
      const [audited] = await database.db.select().from(auditEvents).where(and(eq(auditEvents.orgId, orgId), eq(auditEvents.action, 'agent.token_issued')));
      expect(audited?.details).toMatchObject({ via: 'client_credentials', mode: 'own', sub: agentId });
      // A scope naming only what the catalog lacks (a typo) narrows to nothing, never to "everything held".
      const typo = await clientCredentials(first, agentPrivateKey, { resource, scope: 'notes:raed' });
      expect(decodeJwt(typo.access_token).scope).toBeUndefined();
    });

    it('a replayed client assertion is refused; a key of another agent, and another app, get nothing', async () => {
      // The same assertion twice (oidc-provider's one-use `jti`, atomic across instances: deviation 11).
      const assertion = await new SignJWT({}).setProtectedHeader({ alg: 'ES256' }).setIssuer(agentId).setSubject(agentId).setAudience(instances()).setJti(randomUUID()).setIssuedAt().setExpirationTime('60s').sign(agentPrivateKey);
      const body = () => new URLSearchParams({ grant_type: 'client_credentials', client_id: agentId, client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion, resource });
      // Eight at once, on both instances: exactly one gets a token (deviation 11 makes the `jti` check one INSERT).
      const answers = await Promise.all([first, second, first, second, first, second, first, second].map((harness) => fetch(`${harness.issuer}/oidc/token`, { method: 'POST', body: body() })));
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401, 401, 401, 401, 401, 401, 401]);
      const stranger = await generateKeyPair('ES256');
      expect(await refusal(clientCredentials(first, stranger.privateKey))).toMatchObject({ error: 'invalid_client' });
      const other = await createApp(database.db, { orgId, slug: `other-${randomUUID().slice(0, 6)}`, name: 'Other', publishOrigin: 'https://other.workloads.test', redirectUris: ['https://other.workloads.test/callback'] });
      expect(await refusal(clientCredentials(first, agentPrivateKey, { resource: 'https://other.workloads.test/api/mcp' }))).toMatchObject({ error: 'invalid_target' });
      expect(other.app.id).toBeTruthy();
      expect(await refusal(clientCredentials(first, agentPrivateKey, {}))).toMatchObject({ error: 'invalid_target' });
    });

    it('the MCP SDK’s stock PrivateKeyJwtProvider reaches the example app’s tools as the agent', async () => {
      const provider = new PrivateKeyJwtProvider({ clientId: agentId, privateKey: { ...(await exportJWK(agentPrivateKey)), alg: 'ES256' }, algorithm: 'ES256', expectedIssuer: first.issuer });
      const client = new StockClient({ name: 'invoicer', version: '1.0.0' });
      await client.connect(new StockTransport(new URL(resource), { authProvider: provider }));
      try {
        const tools = await client.listTools();
        expect(tools.tools.map((tool) => tool.name)).toContain('notes.list');
        const listed = await client.callTool({ name: 'notes.list', arguments: {} });
        expect(listed.isError).toBeFalsy();
        expect(exampleApp.accepted.at(-1)?.subject).toBe(agentId);
      } finally {
        await client.close();
      }
    });
  });

  describe('workload identity federation', () => {
    let ruleId: string;

    beforeAll(async () => {
      const { rule } = await asOwner((ctx) =>
        agentCommands.addTrustRule(ctx, { agentId, name: 'Payments cluster', kind: 'kubernetes', issuer: cluster.issuer, jwksUri: cluster.jwksUri, namespace: 'payments', serviceAccount: 'invoicer' }, deps),
      );
      ruleId = rule.id;
      forgetRemoteKeys();
    });

    it('a Kubernetes service-account token and no secret: the agent’s token, then the example app’s tools through the MCP client', async () => {
      const tokens = await presentWorkloadToken(first, await cluster.token({ audience: instances() }), { scope: 'mcp notes:read' });
      expect(tokens.refresh_token).toBeUndefined();
      expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: agentId, aud: appIdentity, scope: 'mcp notes:read' });
      const client = new Client({ name: 'k8s-job', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(resource), { requestInit: { headers: { Authorization: `Bearer ${tokens.access_token}` } } }));
      try {
        const answer = await client.callTool({ name: 'whoami', arguments: {} });
        expect(JSON.stringify(answer.content)).toContain(agentId);
      } finally {
        await client.close();
      }
      const [audited] = await database.db.select().from(auditEvents).where(and(eq(auditEvents.orgId, orgId), eq(auditEvents.action, 'agent.token_issued'))).orderBy(auditEvents.id);
      expect(audited).toBeTruthy();
    });

    it('refuses another namespace, another audience, an expired, a too-long-lived and a replayed token', async () => {
      expect(await refusal(presentWorkloadToken(first, await cluster.token({ audience: instances(), namespace: 'marketing' })))).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('match no trust rule') });
      expect(await refusal(presentWorkloadToken(first, await cluster.token({ audience: ['https://vault.example'] })))).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('audience') });
      expect(await refusal(presentWorkloadToken(first, await cluster.token({ audience: instances(), issuedAgoSeconds: 7200, lifetimeSeconds: 3600 })))).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('expired') });
      expect(await refusal(presentWorkloadToken(first, await cluster.token({ audience: instances(), lifetimeSeconds: 48 * 3600 })))).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('longer') });
      const once = await cluster.token({ audience: instances() });
      await presentWorkloadToken(first, once);
      expect(await refusal(presentWorkloadToken(second, once))).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('already used') });
      // Tampered: the claims changed after signing.
      const [header, payload, signature] = once.split('.');
      const widened = Buffer.from(JSON.stringify({ ...decodeJwt(once), jti: randomUUID() })).toString('base64url');
      expect(await refusal(presentWorkloadToken(first, `${header}.${widened}.${signature}`))).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('not signed by an issuer this organization trusts') });
      expect(payload).toBeTruthy();
    });

    it('one token presented on both instances at once gives exactly one access token', async () => {
      const token = await cluster.token({ audience: instances() });
      const answers = await Promise.allSettled([presentWorkloadToken(first, token), presentWorkloadToken(second, token), presentWorkloadToken(first, token), presentWorkloadToken(second, token)]);
      expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(1);
    });

    it('a SPIFFE JWT-SVID without `iss`, from a trust domain whose bundle is registered', async () => {
      const { publicKey, privateKey } = await generateKeyPair('ES256');
      const bundle = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'svid-1', use: 'jwt-svid' }] });
      await asOwner((ctx) => agentCommands.addTrustRule(ctx, { agentId, name: 'Mesh', kind: 'spiffe', issuer: 'spiffe://example.org', jwks: bundle, spiffeId: 'spiffe://example.org/ns/payments/sa/invoicer' }, deps));
      const svid = async (sub: string) =>
        new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'svid-1', typ: 'JWT' }).setSubject(sub).setAudience(first.issuer).setIssuedAt().setExpirationTime('5m').sign(privateKey);
      const presented = await svid('spiffe://example.org/ns/payments/sa/invoicer');
      const tokens = await presentWorkloadToken(first, presented);
      expect(decodeJwt(tokens.access_token).sub).toBe(agentId);
      // No `jti`: the token itself is used once — also re-encoded (the signature's last character carries 4 unused
      // bits: another string, the same bytes, the same signature).
      expect(await refusal(presentWorkloadToken(first, presented))).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('already used') });
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const last = alphabet.indexOf(presented.at(-1)!);
      const reencoded = `${presented.slice(0, -1)}${alphabet[last ^ 1]}`;
      expect(reencoded).not.toBe(presented);
      expect(await refusal(presentWorkloadToken(first, reencoded))).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('already used') });
      // An issuer PostgreSQL text cannot hold is a malformed assertion, not a server error.
      const nul = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'svid-1' }).setIssuer('https://a\u0000b.example').setSubject('x').setAudience(first.issuer).setIssuedAt().setExpirationTime('5m').sign(privateKey);
      expect(await refusal(presentWorkloadToken(first, nul))).toMatchObject({ error: 'invalid_grant' });
      expect(await refusal(presentWorkloadToken(first, await svid('spiffe://example.org/ns/payments/sa/other')))).toMatchObject({ error: 'invalid_grant' });
      expect(await refusal(presentWorkloadToken(first, await svid('spiffe://evil.org/ns/payments/sa/invoicer')))).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('not signed by an issuer this organization trusts') });
    });

    it('"test this token" says which rule matched, or why none did, without using the token up', async () => {
      const token = await cluster.token({ audience: instances() });
      const tested = await asOwner((ctx) => agentCommands.testToken(ctx, { token }, deps), 'none');
      expect(tested.evaluation).toMatchObject({ ok: true, agentId, rule: { id: ruleId } });
      expect(tested.agentNames.get(agentId)).toBe('Invoicer');
      const marketing = await cluster.token({ audience: instances(), namespace: 'marketing' });
      const other = await asOwner((ctx) => agentCommands.testToken(ctx, { token: marketing }, deps), 'none');
      expect(other.evaluation).toMatchObject({ ok: false, refusal: 'no_match' });
      expect(other.evaluation.verdicts[0]?.mismatch).toMatchObject({ claim: 'sub', actual: 'system:serviceaccount:marketing:invoicer' });
      // Tested, not used: it still gets a token.
      await expect(presentWorkloadToken(first, token)).resolves.toMatchObject({ token_type: expect.stringMatching(/bearer/i) });
    });
  });

  /** A token the agent holds for a gateway server (Portico's own door), and the server's address. */
  let heldAtGateway: { token: string; resource: string } | undefined;

  describe('a gateway server', () => {
    let everything: EverythingServer;
    let server: GatewayServer;
    const atRestKey = new Uint8Array(32).fill(3);

    beforeAll(async () => {
      everything = await startEverything();
      const scope = { org: { id: orgId, slug: 'workloads', name: 'Workloads' } as never, role: null, actor: { door: 'cli' as const, operator: 'workload-test' } };
      server = (await addServerFromUpstream(database.db, scope, { name: 'Everything', url: everything.url }, { issuer: first.issuer, atRestKey, outboundPolicy: { allowLoopback: true } })).server;
      serveGatewayServer(routes, server, { database, harness: first, atRestKey });
      const echo = (await gatewayToolsOf(database.db, server.id)).find((tool) => tool.name === 'echo')!;
      await runOrgOperation(database.db, scope, { audit: 'at_most_one' }, (ctx) => approveGatewayTool(ctx, server, { tool: 'echo', digest: echo.offeredDigest, level: 'caution', approvedBy: owner.id }));
      const approved = (await gatewayToolsOf(database.db, server.id)).find((tool) => tool.name === 'echo')!;
      await asOwner((ctx) => agentCommands.grant(ctx, { agentId, appId: server.appId, scope: approved.permission }));
    }, 60_000);
    afterAll(async () => everything?.close());

    it('without an own-mode connection to it, no token; with one, the stock client calls an approved tool as the agent, audited as the agent', async () => {
      expect(await refusal(clientCredentials(first, agentPrivateKey, { resource: server.resource }))).toMatchObject({ error: 'invalid_target', error_description: expect.stringContaining('own mode') });
      await asOwner((ctx) => agentCommands.connect(ctx, { agentId, appId: server.appId, mode: 'own' }));
      const provider = new PrivateKeyJwtProvider({ clientId: agentId, privateKey: { ...(await exportJWK(agentPrivateKey)), alg: 'ES256' }, algorithm: 'ES256', expectedIssuer: first.issuer });
      const client = new StockClient({ name: 'invoicer', version: '1.0.0' });
      await client.connect(new StockTransport(new URL(server.resource), { authProvider: provider }));
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
        const echoed = await client.callTool({ name: 'echo', arguments: { message: 'from the cluster' } });
        expect(JSON.stringify(echoed.content)).toContain('from the cluster');
      } finally {
        await client.close();
      }
      const calls = await database.db.select().from(auditEvents).where(and(eq(auditEvents.orgId, orgId), eq(auditEvents.action, 'gateway.tool_succeeded')));
      expect(calls.at(-1)).toMatchObject({ actorType: 'agent', actorId: agentId });
      // The legacy era (a session) works too: the MCP SDK 1.x client with the token.
      const token = (await clientCredentials(first, agentPrivateKey, { resource: server.resource })).access_token;
      expect(decodeJwt(token)).toMatchObject({ sub: agentId });
      heldAtGateway = { token, resource: server.resource };
      const legacy = new Client({ name: 'legacy', version: '1.0.0' });
      await legacy.connect(new StreamableHTTPClientTransport(new URL(server.resource), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      try {
        expect(JSON.stringify((await legacy.callTool({ name: 'echo', arguments: { message: 'legacy' } })).content)).toContain('legacy');
      } finally {
        await legacy.close();
      }
    });
  });

  describe('stopping the agent', () => {
    it('disabling it refuses its next token request on both instances, and its app refuses the tokens it holds (RISC account-disabled)', async () => {
      // The app has a push stream to the example app's /security-events, and a poll stream, for account-disabled.
      const atRestKey = new Uint8Array(32);
      const ctx: SsfContext = { db: database.db, issuer: first.issuer, atRestKey, sign: securityEventSigner({ issuer: first.issuer, signingKeys: first.keys.signingKeys }) };
      const basic = `Basic ${Buffer.from(`${encodeURIComponent(appClientId)}:${encodeURIComponent(appClientSecret)}`).toString('base64')}`;
      const stream = async (delivery: Record<string, string>) => {
        const created = await handleStreamsRequest(ctx, new Request(`${first.issuer}/api/ssf/streams`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/json' }, body: JSON.stringify({ delivery, events_requested: [SSF_EVENT_TYPES.accountDisabled] }) }));
        expect(created.status, await created.clone().text()).toBe(201);
        return String(((await created.json()) as { stream_id: string }).stream_id);
      };
      const streamId = await stream({ method: 'urn:ietf:rfc:8936' });
      await stream({ method: 'urn:ietf:rfc:8935', endpoint_url: `${APP_ORIGIN}/security-events` });

      const held = (await clientCredentials(first)).access_token;
      const callWith = async (token: string) => {
        const client = new Client({ name: 'invoicer', version: '1.0.0' });
        try {
          await client.connect(new StreamableHTTPClientTransport(new URL(resource), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
          return JSON.stringify((await client.callTool({ name: 'whoami', arguments: {} })).content);
        } finally {
          await client.close();
        }
      };
      expect(await callWith(held)).toContain(agentId);
      await asOwner((command) => agentCommands.setDisabled(command, { agentId, disabled: true }));
      for (const harness of [first, second]) {
        expect(await refusal(clientCredentials(harness))).toMatchObject({ error: 'unauthorized_client', error_description: expect.stringContaining('disabled') });
        expect(await refusal(presentWorkloadToken(harness, await cluster.token({ audience: instances() })))).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('disabled') });
      }
      const polled = await handlePollRequest(ctx, new Request(`${first.issuer}/api/ssf/poll/${streamId}`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/json' }, body: JSON.stringify({ maxEvents: 10 }) }), streamId);
      const sets = Object.values(((await polled.json()) as { sets: Record<string, string> }).sets).map((set) => decodeJwt(set) as JWTPayload & { events: Record<string, unknown>; sub_id: { sub: string } });
      expect(sets.some((set) => SSF_EVENT_TYPES.accountDisabled in set.events && set.sub_id.sub === agentId)).toBe(true);
      const [disabled] = await database.db.select().from(auditEvents).where(and(eq(auditEvents.orgId, orgId), eq(auditEvents.action, 'agent.disabled')));
      expect(disabled?.details).toMatchObject({ eventsQueued: 2 });

      // Portico's own door (the gateway server) refuses the token it holds at once.
      const atGateway = await fetch(heldAtGateway!.resource, {
        method: 'POST',
        headers: { authorization: `Bearer ${heldAtGateway!.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
      });
      expect(atGateway.status).toBe(401);
      expect(await atGateway.text()).toContain('disabled');

      // The push reaches the example app, which refuses the token the agent still holds, before it expires.
      await deliverDue(database.db, { security_event: securityEventPushDelivery({ db: () => database.db, issuer: first.issuer, signingKeys: first.keys.signingKeys, atRestKey, outbound: { allowLoopback: true } }) });
      expect(exampleApp.securityEvents.map((event) => [event.type, event.sub])).toContainEqual([SSF_EVENT_TYPES.accountDisabled, agentId]);
      await expect(callWith(held)).rejects.toThrow();

      // Turned on again: a new token (issued after the event) is accepted.
      await asOwner((command) => agentCommands.setDisabled(command, { agentId, disabled: false }));
      await new Promise((resolve) => setTimeout(resolve, 1100)); // a token's iat is in whole seconds
      expect(await callWith((await clientCredentials(first)).access_token)).toContain(agentId);
    });

    it('its owner leaving suspends it unless a sponsor team still has a member; the owners and admins are mailed', async () => {
      const leaving = await createMember(database, orgId, `leaving-${randomUUID().slice(0, 6)}@workloads.test`, 'member');
      const admin = await createMember(database, orgId, `admin-${randomUUID().slice(0, 6)}@workloads.test`, 'admin');
      const sponsored = await createAgent(database.db, { orgId, name: 'Sponsored', ownerUserId: leaving.id });
      const orphan = await createAgent(database.db, { orgId, name: 'Orphan', ownerUserId: leaving.id });
      const team = await createTeam(database.db, { orgId, name: `Platform ${randomUUID().slice(0, 4)}` });
      await addTeamMember(database.db, team.id, admin.id);
      await asOwner((ctx) => agentCommands.setSponsor(ctx, { agentId: sponsored.id, teamId: team.id }));

      await runOrgOperation(database.db, { org: { id: orgId, slug: 'workloads', name: 'Workloads' } as never, role: 'owner', actor: { person: owner, ip: '192.0.2.1', door: 'console' } }, { audit: 'exactly_one' }, ({ tx, audit }) =>
        removeMemberCommand({ tx, org: { id: orgId, slug: 'workloads', name: 'Workloads' } as never, mayTransferOwnership: false, audit }, leaving.id),
      );
      const [orphanRow] = await database.db.select().from(agents).where(eq(agents.id, orphan.id));
      const [sponsoredRow] = await database.db.select().from(agents).where(eq(agents.id, sponsored.id));
      expect(orphanRow).toMatchObject({ suspendedReason: 'owner_left' });
      expect(orphanRow?.disabledAt).not.toBeNull();
      expect(sponsoredRow?.disabledAt).toBeNull();

      const report = await runTicker(database.db, { issuer: first.issuer, atRestKey: new Uint8Array(32) }, new Date(), { sweep: false, cleanUpClients: false });
      expect(report.agentSuspensionsTold).toBe(1);
      const mails = await database.db.select().from(outboundDeliveries).where(and(eq(outboundDeliveries.channel, 'mail'), eq(outboundDeliveries.orgId, orgId)));
      expect(mails.map((mail) => mail.recipient).sort()).toEqual(expect.arrayContaining([owner.email, admin.email]));
      // Told once: the next round tells nobody again.
      expect((await runTicker(database.db, { issuer: first.issuer, atRestKey: new Uint8Array(32) }, new Date(), { sweep: false, cleanUpClients: false })).agentSuspensionsTold).toBe(0);
      // Nobody answers for the orphan: turning it on is refused until a sponsor team with a member answers for it.
      await expect(asOwner((ctx) => agentCommands.setDisabled(ctx, { agentId: orphan.id, disabled: false }))).rejects.toMatchObject({ text: { key: 'refusals.agents.nobodyAnswers' } });
      // The sponsor team's last member leaves the team: the sponsored agent stops too.
      await runOrgOperation(database.db, { org: { id: orgId, slug: 'workloads', name: 'Workloads' } as never, role: 'owner', actor: { person: owner, ip: '192.0.2.1', door: 'console' } }, { audit: 'exactly_one' }, ({ tx, audit }) =>
        removeTeamMemberCommand({ tx, org: { id: orgId, slug: 'workloads', name: 'Workloads' } as never, audit } as never, team.id, admin.id),
      );
      const [afterTeam] = await database.db.select().from(agents).where(eq(agents.id, sponsored.id));
      expect(afterTeam).toMatchObject({ suspendedReason: 'owner_left' });
    });
  });

  it('a flood of workload tokens from one network is slowed down (429 slow_down) before any is checked', async () => {
    // The last test of the file: the loopback network's window is full from here on.
    for (let hit = 0; hit < WORKLOAD_PRESENTATIONS_PER_NETWORK.limit; hit += 1) await hitRateLimit(database.db, WORKLOAD_PRESENTATIONS_PER_NETWORK, '127.0.0.1');
    const answer = await fetch(`${first.issuer}/oidc/token`, { method: 'POST', body: new URLSearchParams({ grant_type: JWT_BEARER, client_id: WORKLOAD_CLIENT_ID, assertion: 'x.y.z', resource }) });
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await answer.json()).toMatchObject({ error: 'slow_down' });
  });
});
