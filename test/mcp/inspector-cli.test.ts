// The MCP Inspector's command-line client (@modelcontextprotocol/inspector-cli 1.0.3) against Portico's /api/mcp, as
// a person would run it: its own bin in CLI mode, a bearer token through `--header`, the transport chosen by the URL
// (a path ending in /mcp: Streamable HTTP). It is built on @modelcontextprotocol/sdk v1, so it speaks the 2025-11-25
// era (initialize handshake, a session Portico keeps in PostgreSQL), which the session row below confirms.
//
// Two quirks of 1.0.3 the spawn works around, both outside Portico:
// - without `--cli` the bin starts the web Inspector from ../../client/bin/start.js, which this package does not ship;
// - it finds its own package.json by testing `../package.json` against the *working directory* (then importing it
//   relative to its module), so it runs from its own build folder, where the two agree.
// The bin re-spawns `node` from PATH: the pinned Node goes first on the child's PATH.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpSessions } from '../../lib/db/schema';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { porticoApiToken, startMcpInstance, type McpInstance } from '../support/portico-mcp';
import { createMember, createOrgWithApp, startProviderHarness, type Harness } from '../support/provider-harness';

const PACKAGE = path.resolve('node_modules/@modelcontextprotocol/inspector-cli');

function inspector(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(PACKAGE, 'build/cli.js'), '--cli', ...args], {
      cwd: path.join(PACKAGE, 'build'),
      env: { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('MCP Inspector CLI against /api/mcp', () => {
  let database: TestDatabase;
  let harness: Harness;
  let instance: McpInstance;
  let token: string;
  let email: string;
  let userId: string;

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    const fixture = await createOrgWithApp(database, 'Inspector');
    email = `inspector-${randomBytes(3).toString('hex')}@mcp.test`;
    userId = (await createMember(database, fixture.orgId, email)).id;
    token = await porticoApiToken(harness, database, email);
    instance = await startMcpInstance(database, harness);
  }, 60_000);
  afterAll(async () => {
    await instance?.close();
    await harness?.close();
    await database?.close();
  });

  it('lists the tools with a bearer token, in a 2025-11-25 session', async () => {
    const run = await inspector([instance.url, '--header', `Authorization: Bearer ${token}`, '--method', 'tools/list']);
    expect(run.code, run.stderr).toBe(0);
    const names = (JSON.parse(run.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    expect(names).toContain('whoami');
    const sessions = await database.db.select().from(mcpSessions).where(eq(mcpSessions.userId, userId));
    expect(sessions.map((session) => [session.protocolVersion, (session.clientInfo as { name?: string }).name])).toContainEqual(['2025-11-25', 'inspector-cli']);
  }, 30_000);

  it('calls whoami as the person the token is for', async () => {
    const run = await inspector([instance.url, '--header', `Authorization: Bearer ${token}`, '--method', 'tools/call', '--tool-name', 'whoami']);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { isError?: boolean; structuredContent: { email: string; act: unknown } };
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({ email, act: null });
  }, 30_000);

  it('is refused without the token', async () => {
    const run = await inspector([instance.url, '--method', 'tools/list']);
    expect(run.code).not.toBe(0);
    expect(run.stdout).not.toContain('whoami');
    expect(run.stderr).toContain('a bearer access token is required');
  }, 30_000);
});
