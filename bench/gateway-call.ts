// A safe tool through the MCP gateway (issue 58) beside the same call made directly to the upstream, in the same
// run. The upstream is the MCP baseline's bare SDK server (`/mcp-bare`: no authorization, no database), put behind
// Portico as an organization's server with its one tool approved; the gateway call carries a bearer token for the
// server's resource, passes the same gate as Portico's own tools (safe: no audit), and calls the upstream over the
// outbound guard with the pooled client. The figure that matters is the server time the gateway adds at the median:
// the difference of the two p50s on one connection (no queueing), and Portico's CPU per call under load.
import { and, eq } from 'drizzle-orm';
import { gatewayTools, organizations } from '../lib/db/schema';
import { addServerFromUpstream } from '../lib/gateway/doors';
import { approveGatewayTool, findGatewayServer } from '../lib/gateway/servers';
import { runOrgOperation } from '../lib/organizations/org-operation';
import { alternate, ISSUER, load, type ScenarioResult } from './lib/harness';
import { porticoApiToken, PorticoSession } from './lib/portico-flow';
import type { BenchContext } from './run';

const CONNECTIONS = 16;
const AMOUNT = 6000;
const CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
const HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25' };

export async function gatewayCall(ctx: BenchContext): Promise<ScenarioResult> {
  const { db } = ctx.env;
  const [org] = await db.select().from(organizations).where(eq(organizations.slug, 'demo'));
  if (!org) throw new Error('the bench database has no demo organization');
  const upstream = `${ctx.mcpBaseline.url}/mcp-bare`;
  const scope = { org, role: null, actor: { door: 'cli' as const, operator: 'bench' } };
  const issuer = ISSUER;
  let server = await findGatewayServer(db, org.id, 'bench-upstream');
  if (!server) {
    server = (
      await addServerFromUpstream(
        db,
        scope,
        { name: 'Bench upstream', slug: 'bench-upstream', url: upstream, limits: { maxConcurrentCalls: 64 } },
        { issuer, atRestKey: new Uint8Array(32), outboundPolicy: { allowLoopback: true } },
      )
    ).server;
    const [tool] = await db.select().from(gatewayTools).where(and(eq(gatewayTools.serverId, server.id), eq(gatewayTools.name, 'whoami')));
    if (!tool) throw new Error('the upstream offered no whoami tool');
    await runOrgOperation(db, scope, { audit: 'exactly_one' }, (op) => approveGatewayTool(op, server!, { tool: 'whoami', digest: tool.offeredDigest, level: 'safe', approvedBy: null }));
  }
  const token = await porticoApiToken(new PorticoSession(), server.resource);
  const gatewayUrl = `${ctx.env.portico.url}${new URL(server.resource).pathname}`;
  const initialize = await fetch(gatewayUrl, {
    method: 'POST',
    headers: { ...HEADERS, Authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }),
  });
  const sessionId = initialize.headers.get('mcp-session-id');
  if (!sessionId) throw new Error(`gateway initialize failed: ${initialize.status} ${await initialize.text()}`);
  const gatewayHeaders = { ...HEADERS, Authorization: `Bearer ${token}`, 'Mcp-Session-Id': sessionId };
  // One call first: a refusal fails the scenario here rather than being measured as errors.
  const probe = await fetch(gatewayUrl, { method: 'POST', headers: gatewayHeaders, body: CALL });
  const probed = await probe.text();
  if (probe.status !== 200 || !probed.includes('"result"') || probed.includes('"isError":true')) throw new Error(`a gateway call failed: ${probe.status} ${probed.slice(0, 300)}`);

  const through = (connections: number, amount: number) => () => load({ url: gatewayUrl, method: 'POST', connections, amount, headers: gatewayHeaders, body: CALL }, ctx.env.portico.pid);
  const direct = (connections: number, amount: number) => () => load({ url: upstream, method: 'POST', connections, amount, headers: HEADERS, body: CALL }, ctx.mcpBaseline.pid);
  const { portico, baseline } = await alternate(through(CONNECTIONS, AMOUNT), direct(CONNECTIONS, AMOUNT));
  // One call at a time, nothing queues: the difference of the median latencies (in µs, measured here, not by the
  // load generator's whole milliseconds) is the time the gateway adds to a call.
  const medians = { gateway: [] as number[], direct: [] as number[] };
  for (let round = 0; round < 3; round += 1) {
    medians.gateway.push(await sequentialMedianUs(gatewayUrl, gatewayHeaders, 1000));
    medians.direct.push(await sequentialMedianUs(upstream, HEADERS, 1000));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const single = { gateway: median(medians.gateway), direct: median(medians.direct) };
  const addedMs = Math.round(single.gateway - single.direct) / 1000;
  return {
    name: 'safe tool through the gateway',
    portico,
    baseline: { ...baseline, label: 'the same call made directly to the upstream (bare MCP SDK server)' },
    ratio: Math.round((portico.requestsPerSecond / baseline.requestsPerSecond) * 100) / 100,
    notes: [
      `${CONNECTIONS} connections, ${AMOUNT} calls a run; the gateway's session is one MCP session (2025-11-25)`,
      `one call at a time: through the gateway median ${single.gateway} µs, direct ${single.direct} µs: the gateway adds ${addedMs} ms at the median (goal ≤ 1 ms)`,
    ],
  };
}

/** The median latency of `count` calls made one after another on one kept-alive connection, in µs. */
async function sequentialMedianUs(url: string, headers: Record<string, string>, count: number): Promise<number> {
  const times: number[] = [];
  for (let index = 0; index < count + 100; index += 1) {
    const started = performance.now();
    const response = await fetch(url, { method: 'POST', headers, body: CALL });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`a call answered ${response.status}`);
    // The first hundred warm the connection and the JIT.
    if (index >= 100) times.push((performance.now() - started) * 1000);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(times.length / 2)]!);
}
