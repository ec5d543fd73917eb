// The agents REST API's workload endpoints (issue 59), called as Next calls the route (app/api/v1/orgs/[org]/agents),
// with a Portico API token signed by this file's key and the runtime the route reads (database, issuer, public keys,
// outbound policy): an agent's keys (a private key refused, naming the field), its JWKS URL and sponsor team, a
// Kubernetes trust rule (a rule without its namespace refused), a token tested against the rules (matched, and
// another namespace with its mismatch), removing a rule and a key; a member without agents.manage gets 403 as on
// every agent endpoint, and a non-member 404.
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELETE, GET, POST, PUT } from '../../app/api/v1/orgs/[org]/agents/[[...path]]/route';
import type { User } from '../../lib/accounts/users';
import { agentKeys, auditEvents, workloadTrustRules } from '../../lib/db/schema';
import type { Env } from '../../lib/env';
import { createAgent, type Agent } from '../../lib/organizations/agents';
import { createOrganization } from '../../lib/organizations/organizations';
import { createTeam } from '../../lib/organizations/teams';
import { installRuntime, type PorticoRuntime } from '../../lib/runtime';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { createMember } from '../support/provider-harness';

const ISSUER = 'https://portico.rest.test';
const CLUSTER = 'https://k8s.rest.example';
const REGISTRY = Symbol.for('portico.runtime');

type Route = (request: Request, route: { params: Promise<Record<string, string | string[] | undefined>> }) => Promise<Response>;
const HANDLERS: Record<string, Route> = { GET, POST, PUT, DELETE };

describe('agents over REST: keys, JWKS URL, sponsor, trust rules, token tests', () => {
  let database: TestDatabase;
  let apiKey: CryptoKey;
  let admin: User;
  let member: User;
  let outsider: User;
  let agent: Agent;
  let clusterKey: CryptoKey;
  let clusterJwks: { keys: JWK[] };
  let previous: unknown;
  const slug = `rest-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    database = await openTestDatabase();
    const pair = await generateKeyPair('ES256', { extractable: true });
    apiKey = pair.privateKey;
    // What the route reads of Portico's runtime, and only that (anything else it reached for would be missing).
    const env = { PORTICO_ISSUER: ISSUER, outboundAllowLoopback: false, outboundAllowedNetworks: { networks: [], hosts: [] } } as unknown as Env;
    const partial: Pick<PorticoRuntime, 'env' | 'raw' | 'publicJwks'> = { env, raw: database.raw, publicJwks: [{ ...(await exportJWK(pair.publicKey)), kid: 'rest-test', alg: 'ES256', use: 'sig' }] };
    previous = (globalThis as Record<symbol, unknown>)[REGISTRY];
    installRuntime(partial as PorticoRuntime);

    const org = await createOrganization(database.db, { slug, name: 'REST' });
    admin = await createMember(database, org.id, `admin-${slug}@rest.test`, 'admin');
    member = await createMember(database, org.id, `member-${slug}@rest.test`, 'member');
    const other = await createOrganization(database.db, { slug: `${slug}-other`, name: 'Other' });
    outsider = await createMember(database, other.id, `outsider-${slug}@rest.test`, 'owner');
    agent = await createAgent(database.db, { orgId: org.id, name: 'Builder', ownerUserId: admin.id });
    const cluster = await generateKeyPair('ES256', { extractable: true });
    clusterKey = cluster.privateKey;
    clusterJwks = { keys: [{ ...(await exportJWK(cluster.publicKey)), kid: 'cluster-1', alg: 'ES256' }] };
  });
  afterAll(async () => {
    (globalThis as Record<symbol, unknown>)[REGISTRY] = previous;
    await database?.close();
  });

  /** A Portico API access token for the person (scope mcp), as Portico issues them. */
  const tokenFor = (person: User) =>
    new SignJWT({ scope: 'mcp', client_id: 'rest-test-client' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'rest-test' })
      .setIssuer(ISSUER)
      .setAudience(`${ISSUER}/api/mcp`)
      .setSubject(person.id)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(apiKey);

  async function call(method: string, path: string, body?: unknown, person: User = admin) {
    const segments = path.split('/').filter(Boolean);
    const request = new Request(`${ISSUER}/api/v1/orgs/${slug}/agents/${segments.join('/')}`, {
      method,
      headers: { Authorization: `Bearer ${await tokenFor(person)}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const response = await HANDLERS[method]!(request, { params: Promise.resolve({ org: slug, ...(segments.length > 0 ? { path: segments } : {}) }) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & { error?: string; error_description?: string } };
  }

  const workloadToken = (namespace: string) =>
    new SignJWT({ 'kubernetes.io': { namespace, serviceaccount: { name: 'builder' } } })
      .setProtectedHeader({ alg: 'ES256', kid: 'cluster-1' })
      .setIssuer(CLUSTER)
      .setSubject(`system:serviceaccount:${namespace}:builder`)
      .setAudience(ISSUER)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(clusterKey);

  it('adds, lists and removes a key; refuses a private key, naming public_key', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const added = await call('POST', `/${agent.id}/keys`, { public_key: await exportSPKI(publicKey) });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ alg: 'ES256', kid: expect.any(String), id: expect.any(String) });
    expect(added.body.public_jwk).not.toHaveProperty('d');

    const listed = await call('GET', `/${agent.id}/keys`);
    expect(listed).toMatchObject({ status: 200, body: { keys: [{ id: added.body.id, kid: added.body.kid, alg: 'ES256' }], jwks_uri: null } });

    // A JWK as an object is taken too; a private one is refused next to its field.
    const refused = await call('POST', `/${agent.id}/keys`, { public_key: await exportJWK(privateKey) });
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'public_key: This is a private key. Paste only the public key: the private key never leaves the workload.' } });
    expect((await call('POST', `/${agent.id}/keys`, {})).body.error_description).toBe('public_key: paste a public key: a JWK (JSON) or a PEM "PUBLIC KEY" block');
    expect((await call('POST', `/${agent.id}/keys`, { public_key: 'x', publicKey: 'y' })).body.error_description).toBe('unknown fields: publicKey');

    expect((await call('DELETE', `/${agent.id}/keys/${String(added.body.id)}`)).status).toBe(200);
    expect((await call('DELETE', `/${agent.id}/keys/${String(added.body.id)}`)).status).toBe(404);
    expect(await database.db.select().from(agentKeys).where(eq(agentKeys.agentId, agent.id))).toEqual([]);
  });

  it('sets and removes the JWKS URL and the sponsor team, refusing a URL that is not https', async () => {
    expect((await call('PUT', `/${agent.id}/jwks-uri`, { jwks_uri: 'https://keys.rest.example/jwks.json' })).status).toBe(200);
    expect((await call('GET', `/${agent.id}/keys`)).body.jwks_uri).toBe('https://keys.rest.example/jwks.json');
    const refused = await call('PUT', `/${agent.id}/jwks-uri`, { jwks_uri: 'http://keys.rest.example/jwks.json' });
    expect(refused).toMatchObject({ status: 400, body: { error_description: 'jwks_uri: The JWKS URL must be an https URL (leave it empty to remove it).' } });
    expect((await call('PUT', `/${agent.id}/jwks-uri`, { jwks_uri: null })).status).toBe(200);
    expect((await call('GET', `/${agent.id}/keys`)).body.jwks_uri).toBeNull();

    const org = (await call('GET', '')).body as { agents: { id: string; sponsor_team_id: string | null }[] };
    expect(org.agents.find((row) => row.id === agent.id)?.sponsor_team_id).toBeNull();
    const team = await createTeam(database.db, { orgId: agent.orgId, name: 'Builders' });
    expect((await call('PUT', `/${agent.id}/sponsor`, { team_id: team.id })).body).toMatchObject({ updated: true, message: 'The team Builders now sponsors Builder.' });
    expect(((await call('GET', '')).body as typeof org).agents.find((row) => row.id === agent.id)?.sponsor_team_id).toBe(team.id);
    const unknown = await call('PUT', `/${agent.id}/sponsor`, { team_id: '00000000-0000-4000-8000-000000000000' });
    expect(unknown).toMatchObject({ status: 404, body: { error_description: 'team_id: Choose a team of this organization.' } });
    expect((await call('PUT', `/${agent.id}/sponsor`, { team_id: null })).status).toBe(200);
  });

  it('adds a kubernetes trust rule and lists it; refuses one without its namespace, naming the field', async () => {
    const rule = { name: 'Builder in ci', kind: 'kubernetes', issuer: CLUSTER, jwks: clusterJwks, namespace: 'ci', service_account: 'builder' };
    const missing = await call('POST', `/${agent.id}/trust-rules`, { ...rule, namespace: undefined });
    expect(missing).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'namespace: is required: the Kubernetes namespace (1-63 lowercase letters, digits or -)' } });
    expect((await call('POST', `/${agent.id}/trust-rules`, { ...rule, serviceAccount: 'builder' })).body.error_description).toBe('unknown fields: serviceAccount');
    expect((await call('POST', `/${agent.id}/trust-rules`, { ...rule, claims: ['ref=main'] })).body.error_description).toMatch(/^claims: must be an object/);

    const added = await call('POST', `/${agent.id}/trust-rules`, { ...rule, claims: { 'kubernetes.io.pod.name': 'builder-0' } });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      agent_id: agent.id,
      kind: 'kubernetes',
      issuer: CLUSTER,
      jwks_uri: null,
      subject: 'system:serviceaccount:ci:builder',
      claims: { 'kubernetes.io.namespace': 'ci', 'kubernetes.io.pod.name': 'builder-0', 'kubernetes.io.serviceaccount.name': 'builder' },
    });
    // The pod claim was only to show claims are taken: the rule the test keeps names the namespace and account.
    expect((await call('DELETE', `/trust-rules/${String(added.body.id)}`)).status).toBe(200);
    const kept = await call('POST', `/${agent.id}/trust-rules`, rule);
    expect(kept.status).toBe(201);

    expect((await call('GET', `/${agent.id}/trust-rules`)).body).toEqual({ trust_rules: [kept.body] });
    expect((await call('GET', '/trust-rules')).body).toEqual({ trust_rules: [kept.body] });
    const [event] = await database.db.select().from(auditEvents).where(eq(auditEvents.action, 'agent.trust_rule_added'));
    expect([event!.actorType, event!.actorId]).toEqual(['person', admin.id]);
  });

  it('tests a token: the rule that takes it, or the mismatch rule by rule; nothing recorded', async () => {
    const [rule] = await database.db.select().from(workloadTrustRules).where(eq(workloadTrustRules.agentId, agent.id));
    const matched = await call('POST', '/test-token', { token: await workloadToken('ci') });
    expect(matched).toMatchObject({
      status: 200,
      body: {
        matched: true,
        agent_id: agent.id,
        agent_name: 'Builder',
        rule_id: rule!.id,
        refusal: null,
        issuer: CLUSTER,
        subject: 'system:serviceaccount:ci:builder',
        rules: [{ rule_id: rule!.id, verdict: 'matched', refusal: null, mismatch: null }],
      },
    });
    // On the agent's path: the same answer.
    expect((await call('POST', `/${agent.id}/test-token`, { token: await workloadToken('ci') })).body).toMatchObject({ matched: true, rule_id: rule!.id });

    const other = await call('POST', '/test-token', { token: await workloadToken('prod') });
    expect(other).toMatchObject({
      status: 200,
      body: {
        matched: false,
        agent_id: null,
        rule_id: null,
        refusal: 'no_match',
        refusal_description: 'the assertion’s subject and claims match no trust rule',
        rules: [{ rule_id: rule!.id, verdict: 'not_matched', refusal: 'no_match', mismatch: { claim: 'sub', expected: 'system:serviceaccount:ci:builder', actual: 'system:serviceaccount:prod:builder' } }],
      },
    });
    expect((await call('POST', '/test-token', {})).body).toMatchObject({ error: 'invalid_request', error_description: 'token: paste the workload’s token (a JWT)' });
    expect((await call('POST', '/test-token', { token: 'not a jwt' })).body).toMatchObject({ matched: false, refusal: 'malformed', rules: [] });
    expect((await database.db.select().from(auditEvents)).filter((event) => event.action.includes('test'))).toEqual([]);
  });

  it('keeps every workload endpoint to those who manage agents: 403 for a member, 404 for a non-member', async () => {
    const [rule] = await database.db.select().from(workloadTrustRules).where(eq(workloadTrustRules.agentId, agent.id));
    const attempts: [string, string, unknown?][] = [
      ['GET', `/${agent.id}/keys`],
      ['POST', `/${agent.id}/keys`, { public_key: 'x' }],
      ['PUT', `/${agent.id}/jwks-uri`, { jwks_uri: '' }],
      ['PUT', `/${agent.id}/sponsor`, { team_id: null }],
      ['GET', '/trust-rules'],
      ['POST', `/${agent.id}/trust-rules`, { name: 'x' }],
      ['DELETE', `/trust-rules/${rule!.id}`],
      ['POST', '/test-token', { token: 'x' }],
    ];
    for (const [method, path, body] of attempts) {
      expect((await call(method, path, body, member)).status, `${method} ${path}`).toBe(403);
      expect((await call(method, path, body, outsider)).status, `${method} ${path}`).toBe(404);
    }
    expect(await database.db.select().from(workloadTrustRules)).toHaveLength(1);

    // The agent's own path removes only its own rule; then the rule is gone.
    expect((await call('DELETE', `/agt_00000000000000000000/trust-rules/${rule!.id}`)).status).toBe(404);
    expect((await call('DELETE', `/${agent.id}/trust-rules/${rule!.id}`)).status).toBe(200);
    expect((await call('DELETE', `/trust-rules/${rule!.id}`)).body).toMatchObject({ error: 'not_found', error_description: 'This trust rule does not exist in this organization.' });
  });
});
