// The official MCP conformance scenarios, run against Portico's /api/mcp in both of its eras: 2025-11-25 (sessionful,
// initialize handshake) and 2026-07-28 (stateless, per-request `_meta`), with the runner of
// @modelcontextprotocol/conformance 0.2.0-alpha.12 (the first line that knows 2026-07-28; 0.1.16 knew only 2025).
//
// The runner selects several scenarios only by suite, so each era is ONE invocation: `--suite all --spec-version <era>`
// (every scenario of that revision), judged by the runner's own expected-failures baseline, which this file writes
// from the tables below. In baseline mode the runner exits 0 only when every FAILURE *and every WARNING* is named in
// the baseline and no baselined entry passes (a stale entry fails the run) — so the exclusions below stay true: if
// Portico grows prompts, resources or a logging capability, the run says so.
//
// The runner cannot send a bearer token, so a small loopback proxy adds one (and passes the Host header through
// untouched, which dns-rebinding-protection depends on).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { porticoApiToken, startMcpInstance, type McpInstance } from '../support/portico-mcp';
import { createMember, createOrgWithApp, startProviderHarness, type Harness } from '../support/provider-harness';

type Era = '2025-11-25' | '2026-07-28';
const ERAS: Era[] = ['2025-11-25', '2026-07-28'];

// Why a scenario cannot pass against a production server like Portico (it is not the suite's "everything" fixture).
const FIXTURE_TOOL = "needs a diagnostic tool of the suite's fixture server (test_*), which Portico does not have";
const NO_PROMPTS = 'Portico serves no prompts (prompts/* is -32601 Method not found)';
const NO_RESOURCES = 'Portico serves resources only to a client that advertises MCP Apps; the runner does not, so resources/* is -32601';
const NO_COMPLETIONS = 'Portico declares no completions capability (completion/complete is -32601)';
const NO_LOGGING = 'Portico declares no logging capability (logging/setLevel is -32601)';
const NO_LISTEN = 'Portico refuses subscriptions/listen (-32601): nothing it serves changes while it runs, and a held stream per caller is a resource risk';

/** Scenarios Portico must pass with no FAILURE or WARNING check (beyond the per-check entries of BASELINE). */
const MUST_PASS: Record<Era, string[]> = {
  '2025-11-25': ['server-initialize', 'server-session-lifecycle', 'ping', 'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection'],
  '2026-07-28': [
    'server-stateless',
    'tools-list',
    'caching',
    'http-header-validation',
    'server-sse-multiple-streams',
    'input-required-result-unsupported-methods',
    'dns-rebinding-protection',
  ],
};

/**
 * Expected failures or warnings, each with its reason: a scenario (all of it), or `scenario:check-id` (only that
 * check; the scenario's other checks still count). Shared entries apply to every era that runs the scenario.
 */
const BASELINE: Record<Era | 'both', Record<string, string>> = {
  both: {
    'completion-complete': NO_COMPLETIONS,
    'json-schema-2020-12': "needs the fixture's json_schema_2020_12_tool",
    'tools-call-simple-text': FIXTURE_TOOL,
    'tools-call-image': FIXTURE_TOOL,
    'tools-call-audio': FIXTURE_TOOL,
    'tools-call-embedded-resource': FIXTURE_TOOL,
    'tools-call-mixed-content': FIXTURE_TOOL,
    'tools-call-error': FIXTURE_TOOL,
    'tools-call-with-progress': FIXTURE_TOOL,
    'prompts-list': NO_PROMPTS,
    'prompts-get-simple': NO_PROMPTS,
    'prompts-get-with-args': NO_PROMPTS,
    'prompts-get-embedded-resource': NO_PROMPTS,
    'prompts-get-with-image': NO_PROMPTS,
    'resources-list': NO_RESOURCES,
    'resources-read-text': NO_RESOURCES,
    'resources-read-binary': NO_RESOURCES,
    'resources-templates-read': NO_RESOURCES,
  },
  '2025-11-25': {
    'logging-set-level': NO_LOGGING,
    'tools-call-with-logging': NO_LOGGING,
    'tools-call-sampling': FIXTURE_TOOL,
    'tools-call-elicitation': FIXTURE_TOOL,
    'elicitation-sep1034-defaults': FIXTURE_TOOL,
    'elicitation-sep1330-enums': FIXTURE_TOOL,
    'resources-subscribe': NO_RESOURCES,
    'resources-unsubscribe': NO_RESOURCES,
  },
  '2026-07-28': {
    // server-stateless: its four "Not testable" checks and one SHOULD each drive a fixture tool.
    'server-stateless:sep-2575-server-rejects-undeclared-capability': "needs the fixture's test_missing_capability",
    'server-stateless:sep-2575-missing-capability-http-400': "needs the fixture's test_missing_capability",
    'server-stateless:sep-2575-http-server-no-independent-requests-on-stream': "needs the fixture's test_streaming_elicitation",
    'server-stateless:sep-2575-server-no-log-without-loglevel': "needs the fixture's test_logging_tool",
    'server-stateless:sep-2575-server-sends-tools-list-changed-on-subscription': "(a SHOULD) needs the fixture's test_trigger_tool_change to mutate the tool list",
    // Portico answers subscriptions/listen with -32601: its tools never change while it runs, so there is nothing to
    // notify, and each listen stream is held open (one caller could hold the process's whole allowance of them).
    'server-stateless:sep-2575-server-sends-subscription-ack': NO_LISTEN,
    'server-stateless:sep-2575-server-tags-subscription-id': NO_LISTEN,
    'server-stateless:sep-2575-server-honors-notification-filter': NO_LISTEN,
    // caching: tools/list carries ttlMs and cacheScope; the other lists are methods Portico does not serve.
    'caching:sep-2549-prompts-list-caching-hints': NO_PROMPTS,
    'caching:sep-2549-resources-list-caching-hints': NO_RESOURCES,
    'caching:sep-2549-resources-templates-list-caching-hints': NO_RESOURCES,
    'http-custom-header-server-validation': 'every check is "Not testable": no Portico tool declares x-mcp-header parameters',
    'sep-2164-resource-not-found': `warnings only (its MUST passes): ${NO_RESOURCES} rather than -32602 with data.uri`,
    'input-required-result-basic-elicitation': FIXTURE_TOOL,
    'input-required-result-basic-sampling': FIXTURE_TOOL,
    'input-required-result-basic-list-roots': FIXTURE_TOOL,
    'input-required-result-request-state': FIXTURE_TOOL,
    'input-required-result-multiple-input-requests': FIXTURE_TOOL,
    'input-required-result-multi-round': FIXTURE_TOOL,
    'input-required-result-result-type': FIXTURE_TOOL,
    'input-required-result-tampered-state': FIXTURE_TOOL,
    'input-required-result-capability-check': FIXTURE_TOOL,
    'input-required-result-missing-input-response': `warning only: ${FIXTURE_TOOL}`,
    'input-required-result-ignore-extra-params': `warning only: ${FIXTURE_TOOL}`,
    'input-required-result-non-tool-request': `its round is on prompts/get: ${NO_PROMPTS}`,
  },
};

/**
 * Scenarios the run reports as passing that prove nothing about Portico, so they are not claimed (and cannot be
 * baselined: a baselined scenario that passes is stale).
 */
const NOT_CLAIMED: Record<Era, Record<string, string>> = {
  '2025-11-25': { 'server-sse-polling': 'pending in the suite: INFO checks only, nothing is judged' },
  '2026-07-28': {
    'input-required-result-validate-input': "calls the fixture's test_input_required_result_elicitation; the JSON-RPC error it counts as validation is Portico's unknown-tool error",
  },
};

const baselineOf = (era: Era) => ({ ...BASELINE.both, ...BASELINE[era] });

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
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

type Check = { id: string; status: string; errorMessage?: string };
type EraRun = { code: number | null; output: string; scenarios: Map<string, Check[]> };

/** One runner invocation: every scenario of `era`, judged against the era's baseline. */
function runEra(url: string, era: Era): Promise<EraRun> {
  const dir = mkdtempSync(path.join(tmpdir(), `mcp-conformance-${era}-`));
  const baseline = path.join(dir, 'expected-failures.yml');
  writeFileSync(baseline, `server:\n${Object.keys(baselineOf(era)).map((entry) => `  - ${entry}\n`).join('')}`);
  const outputDir = path.join(dir, 'results');
  const args = ['server', '--url', url, '--suite', 'all', '--spec-version', era, '--expected-failures', baseline, '-o', outputDir];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.resolve('node_modules/@modelcontextprotocol/conformance/dist/index.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => {
      const scenarios = new Map<string, Check[]>();
      // One folder per scenario: server-<scenario>-<timestamp>/checks.json.
      for (const entry of readdirSync(outputDir, { withFileTypes: true })) {
        const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry.name)?.[1];
        if (!entry.isDirectory() || !scenario) continue;
        scenarios.set(scenario, JSON.parse(readFileSync(path.join(outputDir, entry.name, 'checks.json'), 'utf8')) as Check[]);
      }
      resolve({ code, output, scenarios });
    });
  });
}

describe('MCP conformance (official scenarios) against /api/mcp, both eras', () => {
  let database: TestDatabase;
  let harness: Harness;
  let instance: McpInstance;
  let proxy: Awaited<ReturnType<typeof startBearerProxy>>;
  const runs = new Map<Era, Promise<EraRun>>();

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
    // Both eras at once: two runner processes, one Portico.
    for (const era of ERAS) runs.set(era, runEra(`http://127.0.0.1:${proxy.port}/api/mcp`, era));
    await Promise.all(runs.values());
  }, 90_000);
  afterAll(async () => {
    await proxy?.close();
    await instance?.close();
    await harness?.close();
    await database?.close();
  });

  for (const era of ERAS) {
    describe(era, () => {
      it('the runner passes every scenario of the revision, failures only where the baseline says why', async () => {
        const run = await runs.get(era)!;
        expect(run.output, run.output).toContain('Baseline check passed');
        expect(run.code, run.output).toBe(0);
        // Every scenario the revision has is accounted for: claimed, baselined with a reason, or not claimed.
        const baselined = new Set(Object.keys(baselineOf(era)).map((entry) => entry.split(':')[0]!));
        const accounted = new Set([...MUST_PASS[era], ...baselined, ...Object.keys(NOT_CLAIMED[era])]);
        expect([...run.scenarios.keys()].filter((scenario) => !accounted.has(scenario)), run.output).toEqual([]);
        // And every scenario the tables name ran (a renamed or dropped scenario would otherwise pass unseen).
        expect([...accounted].filter((scenario) => !run.scenarios.has(scenario))).toEqual([]);
      });

      for (const scenario of MUST_PASS[era]) {
        it(`passes ${scenario}`, async () => {
          const run = await runs.get(era)!;
          const checks = run.scenarios.get(scenario) ?? [];
          const excused = new Set(
            Object.keys(baselineOf(era))
              .filter((entry) => entry.startsWith(`${scenario}:`))
              .map((entry) => entry.slice(scenario.length + 1)),
          );
          const bad = checks.filter((check) => (check.status === 'FAILURE' || check.status === 'WARNING') && !excused.has(check.id));
          expect(bad, run.output).toEqual([]);
          expect(checks.filter((check) => check.status === 'SUCCESS').length, run.output).toBeGreaterThan(0);
        });
      }
    });
  }
});
