// The official MCP conformance scenarios that fit a production server, run against Portico's /api/mcp with the
// runner of @modelcontextprotocol/conformance. The runner cannot send a bearer token, so a small loopback proxy
// adds one (and passes the Host header through untouched, which dns-rebinding-protection depends on).
// Version: 0.1.16 (0.1.14 and later need Node 22 or later: Portico runs on the pinned Node 24).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { porticoApiToken, startMcpInstance, type McpInstance } from '../support/portico-mcp';
import { createMember, createOrgWithApp, startProviderHarness, type Harness } from '../support/provider-harness';

const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

/** Forwards to `target().port`, adding the bearer token; the Host header goes through as the runner sent it. */
async function startBearerProxy(target: () => McpInstance, token: string): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const upstream = httpRequest(
      { host: '127.0.0.1', port: target().port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${token}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function runScenario(url: string, scenario: string): Promise<{ code: number | null; output: string; checks: { id: string; status: string; errorMessage?: string }[] }> {
  const outputDir = mkdtempSync(path.join(tmpdir(), 'mcp-conformance-'));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.resolve('node_modules/@modelcontextprotocol/conformance/dist/index.js'), 'server', '--url', url, '--scenario', scenario, '-o', outputDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => {
      const checks: { id: string; status: string; errorMessage?: string }[] = [];
      const walk = (dir: string) => {
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
          const file = path.join(dir, entry.name);
          if (entry.isDirectory()) walk(file);
          else if (entry.name === 'checks.json') checks.push(...(JSON.parse(readFileSync(file, 'utf8')) as typeof checks));
        }
      };
      walk(outputDir);
      resolve({ code, output, checks });
    });
  });
}

describe('MCP conformance (official scenarios) against /api/mcp', () => {
  let database: TestDatabase;
  let harness: Harness;
  let instance: McpInstance;
  let proxy: Awaited<ReturnType<typeof startBearerProxy>>;

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    const fixture = await createOrgWithApp(database, 'Conformance');
    const person = await createMember(database, fixture.orgId, `conformance-${randomBytes(3).toString('hex')}@mcp.test`);
    const token = await porticoApiToken(harness, database, person.email);
    // The runner talks to the proxy, which forwards its Host header: that is the host Portico must allow.
    proxy = await startBearerProxy(() => instance, token);
    const hosts = [`127.0.0.1:${proxy.port}`, `localhost:${proxy.port}`];
    instance = await startMcpInstance(database, harness, { extraAllowedHosts: hosts, extraAllowedOrigins: hosts.map((host) => `http://${host}`) });
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await instance?.close();
    await harness?.close();
    await database?.close();
  });

  for (const scenario of SCENARIOS) {
    it(`passes ${scenario}`, async () => {
      const result = await runScenario(`http://127.0.0.1:${proxy.port}/api/mcp`, scenario);
      const failures = result.checks.filter((check) => check.status === 'FAILURE');
      expect(failures, result.output).toEqual([]);
      expect(result.checks.length, result.output).toBeGreaterThan(0);
      expect(result.code, result.output).toBe(0);
    }, 60_000);
  }
});
