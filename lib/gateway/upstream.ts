// Portico as an MCP client of an organization's upstream servers: the MCP SDK's own client (v2, both eras: it
// probes `server/discover` and falls back to `initialize`) over the outbound guard (lib/http/outbound.ts: the address
// is checked before connecting, no redirects, every answer capped in time and size). One connected client per
// upstream and process is kept for calls (a 2025-11-25 upstream's session lives in it); it is dropped at the first
// failure and made again by the next call. A call is never retried: a tool that is not idempotent must not run twice.
import { Client, ProtocolError, SdkHttpError, StreamableHTTPClientTransport, type CallToolResult, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { OutboundRefused, outboundFetch, type OutboundPolicy } from '../http/outbound';
import type { Refusal } from '../refusals/refusal';
import { definitionOf, type ToolDefinition } from './definitions';
import { gatewayRefusal } from './refusal-codes';

/** One upstream as a call reaches it: its address, the header Portico adds (unsealed only in memory), its caps. */
export interface UpstreamTarget {
  serverId: string;
  url: string;
  /** The static credential header, when the server has one. */
  header?: { name: string; value: string };
  timeoutMs: number;
  maxResponseBytes: number;
  maxConcurrentCalls: number;
  /** An OAuth-protected upstream: the person's own tokens, held by Portico (lib/gateway/upstream-oauth.ts). */
  oauth?: { provider: OAuthClientProvider; userId: string; connectUrl: string };
}

export interface UpstreamDeps {
  policy: OutboundPolicy;
}

/** At most this many tools are read from one upstream (pages of tools/list): more is an upstream gone wrong. */
export const MAX_UPSTREAM_TOOLS = 500;

const CLIENT_INFO = { name: 'portico-gateway', version: '0.1.0' };

/**
 * The guard's fetch, for the SDK's transport. A GET (the optional server-to-client stream) is answered 405 here, as
 * a server without one would: the gateway listens for nothing between calls, and a held stream would hang.
 */
function guardedFetch(target: UpstreamTarget, deps: UpstreamDeps): typeof fetch {
  const guarded = outboundFetch(deps.policy, { timeoutMs: target.timeoutMs, maxBytes: target.maxResponseBytes, keepAlive: true });
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if ((init?.method ?? 'GET').toUpperCase() === 'GET' && url === target.url) return new Response(null, { status: 405 });
    return guarded(input, init);
  }) as typeof fetch;
}

function transportFor(target: UpstreamTarget, deps: UpstreamDeps): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(target.url), {
    fetch: guardedFetch(target, deps),
    // OAuth: the SDK adds the person's bearer token, and on a 401 refreshes it (or fails: the person connects again).
    ...(target.oauth ? { authProvider: target.oauth.provider } : {}),
    ...(target.header ? { requestInit: { headers: { [target.header.name]: target.header.value } } } : {}),
  });
}

async function connect(target: UpstreamTarget, deps: UpstreamDeps): Promise<Client> {
  const client = new Client(CLIENT_INFO, { capabilities: {}, versionNegotiation: { mode: 'auto', probe: { timeoutMs: target.timeoutMs } } });
  await client.connect(transportFor(target, deps), { timeout: target.timeoutMs });
  return client;
}

/** A 401 from the upstream, as the SDK reports it (UnauthorizedError, or the HTTP error), anywhere in the cause chain. */
export function isUnauthorized(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 6; current = (current as { cause?: unknown }).cause, depth += 1) {
    if ((current as { name?: unknown }).name === 'UnauthorizedError' || (current instanceof SdkHttpError && current.status === 401)) return true;
  }
  return false;
}

/** What a failed exchange with an upstream was, in the gateway's words: never the network's error text. */
export function upstreamFailure(error: unknown, target?: Pick<UpstreamTarget, 'oauth'>): { refusal: Refusal; upstreamStatus?: number } {
  // The person's tokens are missing, expired beyond refresh, or refused: they connect (again) first.
  if (target?.oauth && isUnauthorized(error)) return { refusal: gatewayRefusal('upstream_refused', 'notConnected', { url: target.oauth.connectUrl }), upstreamStatus: 401 };
  for (let current = error, depth = 0; current && depth < 6; current = (current as { cause?: unknown }).cause, depth += 1) {
    if (current instanceof OutboundRefused) {
      switch (current.reason) {
        case 'timeout':
          return { refusal: gatewayRefusal('upstream_timeout', 'upstreamTimeout') };
        case 'too_large':
          return { refusal: gatewayRefusal('upstream_too_large', 'upstreamTooLarge') };
        case 'unreachable':
        case 'unresolvable':
          return { refusal: gatewayRefusal('upstream_unreachable', 'upstreamUnreachable') };
        default:
          return { refusal: gatewayRefusal('upstream_refused', 'upstreamAddressRefused') };
      }
    }
    if (current instanceof SdkHttpError) {
      const status = current.status;
      if (status === 401 || status === 403) return { refusal: gatewayRefusal('upstream_refused', 'upstreamCredentials', { status }), upstreamStatus: status };
      return { refusal: gatewayRefusal('upstream_unreachable', 'upstreamStatus', { status }), upstreamStatus: status };
    }
    const code = (current as { code?: unknown }).code;
    if (code === 'REQUEST_TIMEOUT') return { refusal: gatewayRefusal('upstream_timeout', 'upstreamTimeout') };
  }
  // Anything else (an answer that is not JSON-RPC, a result of the wrong shape) is the upstream's garbage.
  return { refusal: gatewayRefusal('upstream_invalid', 'upstreamInvalid') };
}

/** Reads the tools an upstream offers now (a fresh connection: an admin's read, not a call's). */
export async function readUpstreamTools(target: UpstreamTarget, deps: UpstreamDeps): Promise<{ tools: ToolDefinition[]; skipped: number }> {
  let client: Client | undefined;
  try {
    client = await connect(target, deps);
    const tools: ToolDefinition[] = [];
    let skipped = 0;
    let cursor: string | undefined;
    const seen = new Set<string>();
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: target.timeoutMs });
      for (const tool of page.tools) {
        const definition = definitionOf(tool);
        // A definition Portico cannot pin (no object input schema, a name MCP does not allow, a name twice) is not offered.
        if (!definition || seen.has(definition.name)) skipped += 1;
        else {
          seen.add(definition.name);
          tools.push(definition);
        }
      }
      cursor = page.nextCursor;
      if (tools.length + skipped > MAX_UPSTREAM_TOOLS) throw gatewayRefusal('upstream_invalid', 'upstreamTooManyTools', { max: MAX_UPSTREAM_TOOLS });
    } while (cursor);
    return { tools, skipped };
  } catch (error) {
    if ((error as { domain?: unknown }).domain === 'gateway') throw error;
    // A 401 without a credential of Portico's: the server asks for OAuth (the caller decides what that means).
    if (!target.oauth && !target.header && isUnauthorized(error)) throw error;
    throw upstreamFailure(error, target).refusal;
  } finally {
    await client?.close().catch(() => {});
  }
}

interface Pooled {
  key: string;
  client: Promise<Client>;
}

/** Per process: the connected client of each upstream, and how many calls are in flight to it. */
const pool = new Map<string, Pooled>();
const inFlight = new Map<string, number>();

function keyOf(target: UpstreamTarget): string {
  return JSON.stringify([target.url, target.header?.name, target.header?.value, target.timeoutMs, target.maxResponseBytes]);
}

/** One client per server, and per person for an OAuth-protected server (each person's own session and tokens). */
function poolKeyOf(target: UpstreamTarget): string {
  return target.oauth ? `${target.serverId}/${target.oauth.userId}` : target.serverId;
}

/** At most this many clients are kept per process; the oldest is closed first. */
const POOL_LIMIT = 1_000;

function pooledClient(target: UpstreamTarget, deps: UpstreamDeps): Promise<Client> {
  const key = keyOf(target);
  const poolKey = poolKeyOf(target);
  const current = pool.get(poolKey);
  if (current?.key === key) return current.client;
  // The server's address, credential or caps changed: its old client goes.
  if (current) dropClient(poolKey, current.client);
  if (pool.size >= POOL_LIMIT) {
    const [oldest, pooled] = pool.entries().next().value!;
    dropClient(oldest, pooled.client);
  }
  const client = connect(target, deps);
  pool.set(poolKey, { key, client });
  client.catch(() => dropClient(poolKey, client));
  return client;
}

function dropClient(serverId: string, client: Promise<Client>): void {
  if (pool.get(serverId)?.client !== client) return;
  pool.delete(serverId);
  void client.then((connected) => connected.close()).catch(() => {});
}

/** Forgets a server's clients (it was disabled, removed, or its credential changed). */
export function forgetUpstream(serverId: string): void {
  for (const [poolKey, pooled] of [...pool]) if (poolKey === serverId || poolKey.startsWith(`${serverId}/`)) dropClient(poolKey, pooled.client);
}

export interface UpstreamCall {
  result: CallToolResult;
  /** How long the upstream took, in milliseconds. */
  durationMs: number;
}

/**
 * One call of one tool, at most once: no retry on any failure. Above the server's concurrency cap (in this process)
 * the call is refused at once, not queued.
 */
export async function callUpstreamTool(target: UpstreamTarget, name: string, args: Record<string, unknown>, deps: UpstreamDeps, signal?: AbortSignal): Promise<UpstreamCall> {
  const running = inFlight.get(target.serverId) ?? 0;
  if (running >= target.maxConcurrentCalls) throw gatewayRefusal('upstream_busy', 'upstreamBusy', { max: target.maxConcurrentCalls });
  inFlight.set(target.serverId, running + 1);
  const started = performance.now();
  const client = pooledClient(target, deps);
  const poolKey = poolKeyOf(target);
  try {
    const result = (await (await client).callTool({ name, arguments: args }, { timeout: target.timeoutMs, ...(signal ? { signal } : {}) })) as CallToolResult;
    if (!Array.isArray(result.content)) throw gatewayRefusal('upstream_invalid', 'upstreamInvalid');
    return { result, durationMs: performance.now() - started };
  } catch (error) {
    // The upstream's own JSON-RPC error (invalid params, an unknown tool): its answer to this call. The session and the
    // other calls on it are fine; only the transport failing ends the pooled client.
    if (error instanceof ProtocolError) throw Object.assign(gatewayRefusal('upstream_rpc_error', 'upstreamRpcError', { code: error.code }), { durationMs: performance.now() - started });
    dropClient(poolKey, client);
    if ((error as { domain?: unknown }).domain === 'gateway') throw error;
    const failure = upstreamFailure(error, target);
    throw Object.assign(failure.refusal, { upstreamStatus: failure.upstreamStatus, durationMs: performance.now() - started });
  } finally {
    const left = (inFlight.get(target.serverId) ?? 1) - 1;
    if (left <= 0) inFlight.delete(target.serverId);
    else inFlight.set(target.serverId, left);
  }
}
