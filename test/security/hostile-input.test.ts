// Hostile input, generated (fast-check): registration metadata, token endpoint parameters, JSON-RPC messages to
// Portico's MCP endpoint, and forged JWTs. Whatever arrives, the answer is the protocol's own error shape (RFC 7591,
// RFC 6749, JSON-RPC, RFC 6750), never a 500, and nothing is written: the rows are counted before and after.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { count } from 'drizzle-orm';
import { base64url, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateRegistration } from '../../lib/clients/registration';
import { approvalRequests, auditEvents, clients, confirmationChallenges, mcpSessions, oidcPayloads } from '../../lib/db/schema';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { porticoApiToken, startMcpInstance, type McpInstance } from '../support/portico-mcp';
import { createMember, createOrgWithApp, startProviderHarness, type Harness } from '../support/provider-harness';

const RFC6749_ERRORS = ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'invalid_target'];
const RUNS = { numRuns: 150 };

/** Strings a hostile client likes: empty, huge, control characters, unicode, URLs of every scheme, JSON-ish. */
const nastyString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '../../etc/passwd', 'javascript:alert(1)', 'http://127.0.0.1:1/cb', 'https://evil.example/cb#frag', 'data:text/html,x', '*', '%00', '{"a":1}', 'null', 'a'.repeat(5000)),
  fc.webUrl(),
);
const nastyJson = fc.oneof(nastyString, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(nastyString, { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 8 }), nastyString, { maxKeys: 3 }));

describe('hostile input', () => {
  let database: TestDatabase;
  let harness: Harness;
  let mcp: McpInstance;
  let token: string;
  let clientId: string;

  const rowCounts = async () => {
    const tables = { clients, oidcPayloads, approvalRequests, confirmationChallenges, auditEvents };
    return Object.fromEntries(await Promise.all(Object.entries(tables).map(async ([name, table]) => [name, (await database.db.select({ n: count() }).from(table))[0]!.n] as const)));
  };

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    mcp = await startMcpInstance(database, harness);
    const fixture = await createOrgWithApp(database, 'Hostile');
    const person = await createMember(database, fixture.orgId, `hostile-${randomBytes(3).toString('hex')}@hostile.test`, 'owner');
    token = await porticoApiToken(harness, database, person.email);
    clientId = fixture.clientId;
  });
  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
    await database?.close();
  });

  it('registration metadata: a valid registration or an RFC 7591 error, never a throw', () => {
    const fields = fc.record(
      {
        redirect_uris: fc.oneof(fc.array(nastyString, { maxLength: 5 }), nastyJson),
        client_name: nastyJson,
        token_endpoint_auth_method: fc.oneof(fc.constantFrom('none', 'client_secret_basic', 'private_key_jwt'), nastyJson),
        grant_types: fc.oneof(fc.constant(['authorization_code', 'refresh_token']), nastyJson),
        response_types: fc.oneof(fc.constant(['code']), nastyJson),
        scope: nastyJson,
        client_uri: nastyJson,
        logo_uri: nastyJson,
        jwks_uri: nastyJson,
        software_statement: nastyJson,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(fields, nastyJson), (metadata) => {
        const result = validateRegistration(metadata);
        if ('error' in result) {
          expect(['invalid_client_metadata', 'invalid_redirect_uri', 'invalid_software_statement']).toContain(result.error);
          expect(typeof result.error_description).toBe('string');
        } else {
          // Anything accepted is a public client with only https (or loopback http) redirect URIs.
          for (const uri of result.redirectUris) expect(uri).toMatch(/^(https:\/\/|http:\/\/(127\.0\.0\.1|\[::1\]|localhost)[:/])|^[a-z][a-z0-9+.-]*\.[a-z0-9.-]+:/);
        }
      }),
      RUNS,
    );
  });

  it('token endpoint parameters: always an RFC 6749 error in JSON, never a 500, nothing written', async () => {
    const before = await rowCounts();
    const parameters = fc.dictionary(
      fc.constantFrom('grant_type', 'code', 'refresh_token', 'redirect_uri', 'code_verifier', 'resource', 'scope', 'client_secret', 'client_assertion', 'client_assertion_type', 'audience', 'subject_token', 'x'),
      nastyString,
      { maxKeys: 6 },
    );
    await fc.assert(
      fc.asyncProperty(parameters, fc.constantFrom(clientId, 'unknown-client', ''), async (params, client) => {
        const response = await fetch(`${harness.issuer}/oidc/token`, { method: 'POST', body: new URLSearchParams({ client_id: client, ...params }) });
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        const body = (await response.json()) as { error?: string; error_description?: string };
        expect(RFC6749_ERRORS).toContain(body.error);
      }),
      RUNS,
    );
    expect(await rowCounts()).toEqual(before);
  });

  it('JSON-RPC messages to /api/mcp: a JSON-RPC error or an HTTP 4xx, never a 500, nothing written', async () => {
    const initialize = await fetch(mcp.url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'hostile', version: '1' } } }),
    });
    const session = initialize.headers.get('mcp-session-id')!;
    expect(session).toMatch(/^mcs_/);
    const before: Record<string, number> = { ...(await rowCounts()), sessions: (await database.db.select({ n: count() }).from(mcpSessions))[0]!.n };

    const message = fc.oneof(
      nastyJson,
      fc.record(
        {
          jsonrpc: fc.oneof(fc.constant('2.0'), nastyJson),
          id: fc.oneof(fc.integer(), nastyString, fc.constant(null), nastyJson),
          method: fc.oneof(fc.constantFrom('tools/call', 'tools/list', 'resources/read', 'initialize', 'ping', 'elicitation/create', 'notifications/initialized'), nastyString),
          params: fc.oneof(fc.record({ name: fc.oneof(fc.constantFrom('clients.revoke', 'permissions.request_sensitive_access', 'whoami'), nastyString), arguments: nastyJson }, { requiredKeys: [] }), nastyJson),
          result: nastyJson,
          error: nastyJson,
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(message, fc.boolean(), fc.boolean(), async (body, withSession, raw) => {
        const response = await fetch(mcp.url, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...(withSession ? { 'Mcp-Session-Id': session } : {}) },
          // raw: a string as it is, or JSON cut short.
          body: raw ? (typeof body === 'string' ? body : JSON.stringify(body).slice(0, -1)) : JSON.stringify(body),
        });
        expect(response.status).not.toBe(500);
        expect(response.status).toBeLessThan(500);
        const text = await response.text();
        expect(text).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
        if (text && (response.headers.get('content-type') ?? '').includes('application/json')) {
          const parsed = JSON.parse(text) as { jsonrpc?: string; error?: { code?: number; message?: string } } | unknown[];
          const answers = Array.isArray(parsed) ? parsed : [parsed];
          for (const answer of answers as { jsonrpc?: string; error?: { code?: unknown } }[]) {
            expect(answer.jsonrpc).toBe('2.0');
            if (answer.error) expect(typeof answer.error.code).toBe('number');
          }
        }
      }),
      RUNS,
    );
    const after: Record<string, number> = { ...(await rowCounts()), sessions: (await database.db.select({ n: count() }).from(mcpSessions))[0]!.n };
    // Only "initialize" can make a session, and random tool calls never pass their argument checks.
    expect({ ...after, sessions: 0, auditEvents: 0 }).toEqual({ ...before, sessions: 0, auditEvents: 0 });
    expect(after.approvalRequests).toBe(before.approvalRequests);
  });

  it('forged JWTs: alg none, HS256 keyed with the public key, a wrong kid, a foreign key, huge headers → 401 invalid_token', async () => {
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as Record<string, unknown>;
    const publicJwk = harness.keys.signingKeys.find((key) => key.kid === header.kid) ?? harness.keys.signingKeys[0]!;
    const encode = (value: unknown) => base64url.encode(JSON.stringify(value));
    const foreign = await generateKeyPair('ES256');
    const forgeries: Record<string, string> = {
      'alg none': `${encode({ alg: 'none', typ: header.typ })}.${encode(claims)}.`,
      'alg none, kid kept': `${encode({ ...header, alg: 'none' })}.${encode(claims)}.`,
      'HS256 keyed with the public JWK': await new SignJWT(claims).setProtectedHeader({ ...header, alg: 'HS256' }).sign(new TextEncoder().encode(JSON.stringify({ kty: publicJwk.kty, crv: (publicJwk as { crv?: string }).crv, x: (publicJwk as { x?: string }).x, y: (publicJwk as { y?: string }).y }))),
      'wrong kid': await new SignJWT(claims).setProtectedHeader({ ...header, alg: 'ES256', kid: 'not-a-portico-key' }).sign(foreign.privateKey),
      'foreign key, right kid': await new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(foreign.privateKey),
      'claims changed, signature kept': `${token.split('.')[0]}.${encode({ ...claims, sub: 'someone-else' })}.${token.split('.')[2]}`,
      'jwk embedded in header': await new SignJWT(claims).setProtectedHeader({ ...header, kid: undefined, jwk: await exportJWK(foreign.publicKey) } as never).sign(foreign.privateKey),
      'huge header': `${encode({ ...header, pad: 'x'.repeat(6000) })}.${token.split('.')[1]}.${token.split('.')[2]}`,
    };
    for (const [name, forged] of Object.entries(forgeries)) {
      const response = await fetch(mcp.url, { method: 'POST', headers: { Authorization: `Bearer ${forged}`, 'Content-Type': 'application/json' }, body: '{}' });
      expect(response.status, name).toBe(401);
      expect(response.headers.get('www-authenticate'), name).toContain('error="invalid_token"');
    }
    // A header too large for the HTTP server is refused before Portico reads it: still no 500.
    const enormous = await fetch(mcp.url, { method: 'POST', headers: { Authorization: `Bearer ${'a'.repeat(70_000)}` }, body: '{}' }).catch(() => undefined);
    if (enormous) expect(enormous.status).toBeLessThan(500);
    // And random tokens.
    await fc.assert(
      fc.asyncProperty(fc.oneof(nastyString.filter((value) => /^[\x21-\x7e]+$/.test(value)), fc.tuple(nastyString, nastyString, nastyString).map((parts) => parts.map((part) => base64url.encode(part)).join('.'))), async (forged) => {
        const response = await fetch(mcp.url, { method: 'POST', headers: { Authorization: `Bearer ${forged}`, 'Content-Type': 'application/json' }, body: '{}' });
        expect([400, 401]).toContain(response.status);
      }),
      { numRuns: 60 },
    );
  });

  it('oversized bodies: the MCP endpoint and the tools over REST answer 413 in their own shape, and read no further', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(600_000) } });
    const before = await rowCounts();
    const viaMcp = await fetch(mcp.url, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: big });
    expect(viaMcp.status).toBe(413);
    expect(((await viaMcp.json()) as { error: { code: number } }).error.code).toBe(-32600);
    const viaRest = await fetch(`http://127.0.0.1:${mcp.port}/api/tools/whoami`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: big });
    expect(viaRest.status).toBe(413);
    expect(((await viaRest.json()) as { error: string }).error).toBe('invalid_request');
    expect(await rowCounts()).toEqual(before);
  });
});
