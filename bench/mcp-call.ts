// Authorized MCP call: tools/call of a safe tool (whoami) on Portico's /api/mcp with a bearer token, in each MCP
// era, against an MCP SDK server with the same tool on plain node:http that does the equivalent work (one shared
// validator, the bearer token verified, one prepared statement for the person — and the session in 2025-11-25 — and
// one for whoami's own answer, the person's organizations, as Portico's tool reads them), and the bare SDK server (no
// authorization, no database, its default per-server validator) measured beside.
// - `mcp-call`: 2025-11-25, with a session (Portico keeps it in PostgreSQL);
// - `mcp-call-modern`: 2026-07-28, no session, the request's envelope in `_meta`, on the SDK v2 line both sides.
import { alternate, load, ratio, repeat, type ScenarioResult } from './lib/harness';
import type { BenchContext } from './run';

const CONNECTIONS = 16;
const AMOUNT = 8000;
const CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
const ACCEPT = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25' };

const MODERN = '2026-07-28';
const MODERN_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'whoami',
    arguments: {},
    _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} },
  },
});
const MODERN_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'whoami' };

export async function mcpCallModern(ctx: BenchContext): Promise<ScenarioResult> {
  const token = await ctx.apiToken();
  const baselineToken = await (await fetch(`${ctx.mcpBaseline.url}/__token`)).text();
  // One call first: a refusal fails the scenario here rather than being measured as errors.
  const probe = await fetch(`${ctx.env.portico.url}/api/mcp`, { method: 'POST', headers: { ...MODERN_HEADERS, Authorization: `Bearer ${token}` }, body: MODERN_CALL });
  const probed = await probe.text();
  if (probe.status !== 200 || !probed.includes('"result"')) throw new Error(`a 2026-07-28 call failed: ${probe.status} ${probed.slice(0, 300)}`);
  const porticoRun = () => load({ url: `${ctx.env.portico.url}/api/mcp`, method: 'POST', connections: CONNECTIONS, amount: AMOUNT, headers: { ...MODERN_HEADERS, Authorization: `Bearer ${token}` }, body: MODERN_CALL }, ctx.env.portico.pid);
  const baselineRun = () =>
    load({ url: `${ctx.mcpBaseline.url}/mcp-modern`, method: 'POST', connections: CONNECTIONS, amount: AMOUNT, headers: { ...MODERN_HEADERS, Authorization: `Bearer ${baselineToken}` }, body: MODERN_CALL }, ctx.mcpBaseline.pid);
  const bareRun = () => load({ url: `${ctx.mcpBaseline.url}/mcp-modern-bare`, method: 'POST', connections: CONNECTIONS, amount: AMOUNT, headers: MODERN_HEADERS, body: MODERN_CALL }, ctx.mcpBaseline.pid);
  const { portico, baseline } = await alternate(porticoRun, baselineRun);
  const bare = await repeat(bareRun);
  return {
    name: 'authorized MCP call, 2026-07-28',
    portico,
    baseline: { ...baseline, label: 'MCP SDK v2 dual-era handler, shared validator, bearer verified, 2 prepared statements (the person; whoami’s organizations), node:http' },
    limit: { ...bare, label: 'bare MCP SDK v2 handler: no auth, default validator' },
    ratio: ratio(portico, baseline),
    notes: [`${CONNECTIONS} connections, ${AMOUNT} calls a run, no session (stateless revision); ratio to the bare handler ${ratio(portico, bare)}×`],
  };
}

export async function mcpCall(ctx: BenchContext): Promise<ScenarioResult> {
  const token = await ctx.apiToken();
  const initialize = await fetch(`${ctx.env.portico.url}/api/mcp`, {
    method: 'POST',
    headers: { ...ACCEPT, Authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }),
  });
  const sessionId = initialize.headers.get('mcp-session-id');
  if (!sessionId) throw new Error(`initialize failed: ${initialize.status} ${await initialize.text()}`);
  const baselineToken = await (await fetch(`${ctx.mcpBaseline.url}/__token`)).text();
  const porticoRun = () =>
    load({ url: `${ctx.env.portico.url}/api/mcp`, method: 'POST', connections: CONNECTIONS, amount: AMOUNT, headers: { ...ACCEPT, Authorization: `Bearer ${token}`, 'Mcp-Session-Id': sessionId }, body: CALL }, ctx.env.portico.pid);
  const baselineRun = () =>
    load({ url: `${ctx.mcpBaseline.url}/mcp`, method: 'POST', connections: CONNECTIONS, amount: AMOUNT, headers: { ...ACCEPT, Authorization: `Bearer ${baselineToken}`, 'Mcp-Session-Id': sessionId }, body: CALL }, ctx.mcpBaseline.pid);
  const bareRun = () => load({ url: `${ctx.mcpBaseline.url}/mcp-bare`, method: 'POST', connections: CONNECTIONS, amount: AMOUNT, headers: ACCEPT, body: CALL }, ctx.mcpBaseline.pid);
  const { portico, baseline } = await alternate(porticoRun, baselineRun);
  const bare = await repeat(bareRun);
  return {
    name: 'authorized MCP call',
    portico,
    baseline: { ...baseline, label: 'MCP SDK server, shared validator, bearer verified, 2 prepared statements (the person; whoami’s organizations), node:http' },
    limit: { ...bare, label: 'bare MCP SDK server: no auth, default validator' },
    ratio: ratio(portico, baseline),
    notes: [`${CONNECTIONS} connections, ${AMOUNT} calls a run, one MCP session; ratio to the bare server ${ratio(portico, bare)}×`],
  };
}
