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
  // On one connection nothing queues: the difference of the medians is the time the gateway adds to a call.
  const single = await alternate(through(1, 1500), direct(1, 1500));
  const addedMs = Math.round((single.portico.p50Ms - single.baseline.p50Ms) * 1000) / 1000;
  return {
    name: 'safe tool through the gateway',
    portico,
    baseline: { ...baseline, label: 'the same call made directly to the upstream (bare MCP SDK server)' },
    ratio: Math.round((portico.requestsPerSecond / baseline.requestsPerSecond) * 100) / 100,
    notes: [
      `${CONNECTIONS} connections, ${AMOUNT} calls a run; the gateway's session is one MCP session (2025-11-25)`,
      `one connection: through the gateway p50 ${single.portico.p50Ms} ms, direct p50 ${single.baseline.p50Ms} ms: the gateway adds ${addedMs} ms at the median (goal ≤ 1 ms)`,
    ],
  };
}
