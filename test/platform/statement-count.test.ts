// How many statements a hot request sends to the database, held here so that it cannot grow unnoticed (issue 25:
// every statement is a round trip and PostgreSQL CPU). Counted with drizzle's query log on the real provider
// configuration; a change that adds a statement to these paths must change this test and say why.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eq } from 'drizzle-orm';
import { drizzleFor } from '../../lib/db/client';
import { clients, users } from '../../lib/db/schema';
import { porticoApiToken, startMcpInstance, type McpInstance } from '../support/portico-mcp';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { indexLeads, planOf, wholeReads } from '../support/plans';
import { createMember, createOrgWithApp, relyingParty, signIn, startProviderHarness, type AppFixture, type Harness } from '../support/provider-harness';

describe('statements per request', () => {
  let database: TestDatabase;
  let counted: TestDatabase;
  let harness: Harness;
  let app: AppFixture;
  let config: oidc.Configuration;
  let mcp: McpInstance;
  const statements: string[] = [];
  /** Every statement a counted request sent, with its parameters: their plans are checked at the end. */
  const planned: Array<{ query: string; parameters: unknown[] }> = [];
  let counting = false;

  beforeAll(async () => {
    database = await openTestDatabase();
    counted = {
      ...database,
      db: drizzleFor(database.raw, {
        onQuery: (query, parameters) => {
          if (!counting) return;
          statements.push(query);
          planned.push({ query, parameters });
        },
      }),
    };
    harness = await startProviderHarness(counted);
    app = await createOrgWithApp(database, 'Counted');
    await createMember(database, app.orgId, 'counted@acme.test');
    config = await relyingParty(harness, app);
    mcp = await startMcpInstance(counted, harness, { confirmationMode: 'in_band' });
  });
  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
    await database?.close();
  });

  async function countDuring(work: () => Promise<unknown>): Promise<string[]> {
    statements.length = 0;
    counting = true;
    try {
      await work();
    } finally {
      counting = false;
    }
    return [...statements];
  }

  it('a refresh grant of an app client', async () => {
    const attempt = await signIn(harness, database, config, app, { email: 'counted@acme.test' }, { scope: 'openid offline_access', prompt: 'consent' });
    const first = await oidc.authorizationCodeGrant(config, attempt.callbackUrl!, attempt.checks);
    // Warm: the first refresh may load what a process keeps afterwards.
    let refreshToken = (await oidc.refreshTokenGrant(config, first.refresh_token!)).refresh_token!;
    let accessToken = '';
    const sent = await countDuring(async () => {
      const refreshed = await oidc.refreshTokenGrant(config, refreshToken);
      refreshToken = refreshed.refresh_token!;
      accessToken = refreshed.access_token;
    });
    expect(accessToken).toBeTruthy();
    // The client (with its app's state, redirect URIs and secrets) and the person (with their membership) come from
    // this process's read cache. 1 the refresh token; 2 its grant; 3 the token consumed; 4 its successor (one head
    // per family); 5 the grant saved. Lower this number when a statement goes; never raise it silently.
    expect(sent.length, sent.join('\n')).toBe(EXPECTED_REFRESH_STATEMENTS);

    // A change to the client or to the person drops what was cached: the next refresh reads both again.
    await database.db.update(clients).set({ name: 'Counted, renamed' }).where(eq(clients.id, app.clientId));
    await database.db.update(users).set({ name: 'Counted person' }).where(eq(users.email, 'counted@acme.test'));
    const reread = await countDuring(async () => {
      refreshToken = (await oidc.refreshTokenGrant(config, refreshToken)).refresh_token!;
    });
    expect(reread.length, reread.join('\n')).toBe(EXPECTED_REFRESH_STATEMENTS + 2);
  });

  it('an MCP tools/call of a safe tool in a live session', async () => {
    const token = await porticoApiToken(harness, database, 'counted@acme.test');
    const client = new Client({ name: 'counted', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    try {
      await client.callTool({ name: 'whoami', arguments: {} });
      let answer: unknown;
      const sent = await countDuring(async () => {
        answer = await client.callTool({ name: 'whoami', arguments: {} });
      });
      expect(JSON.stringify(answer)).toContain('counted@acme.test');
      // 1 the person, the acting agent (none here) and the live MCP session, in one statement; 2 the tool's own
      // work (whoami lists the person's organizations). Nothing else: no session, person or schema statement.
      expect(sent.length, sent.join('\n')).toBe(EXPECTED_MCP_CALL_STATEMENTS);
    } finally {
      await client.close();
    }
  });

  it('sends no statement that reads a growing table whole: each one uses an index', async () => {
    expect(planned.length).toBeGreaterThanOrEqual(EXPECTED_REFRESH_STATEMENTS + EXPECTED_MCP_CALL_STATEMENTS);
    const scans: string[] = [];
    const indexes = await indexLeads(database);
    for (const { query, parameters } of planned) {
      const plan = await planOf(database, query, parameters);
      for (const table of wholeReads(plan, indexes)) if (!SMALL_TABLES.has(table)) scans.push(`${table}: ${query}\n${JSON.stringify(plan, null, 1)}`);
    }
    expect(scans, scans.join('\n\n')).toEqual([]);
  });
});

/** Tables that stay small whatever the traffic (keys, configuration): a scan of them is fine. */
const SMALL_TABLES = new Set(['signing_keys', 'cookie_keys', 'system_state', '__drizzle_migrations']);

const EXPECTED_REFRESH_STATEMENTS = 5;
const EXPECTED_MCP_CALL_STATEMENTS = 2;
