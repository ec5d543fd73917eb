// A gateway server as a protected resource of Portico's, at `<issuer>/mcp/<org>/<server>`: RFC 9728 metadata, the
// 401 challenge naming what its tools need, tokens whose audience is the server's app (RFC 8707 binding, DCR and
// CIMD as for any app), and the MCP endpoint in both eras — lib/mcp/server.ts's own machinery, given this server's
// approved tools in place of Portico's. Every call passes the same confirmation gate as Portico's tools (levels,
// audit from caution, a person's confirmation with step-up bound to the arguments' RFC 8785 digest, single use);
// the upstream is called only once the gate lets the call through, at most once per confirmation.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { JWK } from 'jose';
import { CLIENT_CAPABILITIES_META_KEY, inputRequired, inputResponse, type CallToolResult, type InputRequiredResult } from '@modelcontextprotocol/server';
import { insufficientScope, protectedResourceMetadata, type ProtectedResourceConfig } from '../../app-kit/protected-resource';
import { requiredScopesOf, type AnyKitTool, type ToolContext, type ToolEvent } from '../../app-kit/tools';
import { missingPermissions } from '../../app-kit/decision';
import { translator } from '../i18n/catalogs';
import { GATEWAY_CONNECT_PATH, isConnected } from './upstream-oauth';
import type { RiskLevel } from '../../app-kit/risk';
import { BASELINE_SCOPE, sortScopes } from '../clients/permission-catalog';
import { gatewayConfirmationGate } from '../confirmations/store';
import { readCacheOf, type Database } from '../db/client';
import { recordAuditEvent } from '../audit/events';
import { jsonRpcError, oauthError } from '../http/errors';
import { and, eq, isNull } from 'drizzle-orm';
import { agents } from '../db/schema';
import { isActiveMember } from '../organizations/memberships';
import type { OutboundPolicy } from '../http/outbound';
import type { ApiCaller } from '../mcp/authenticate';
import type { PorticoToolExtra } from '../mcp/context';
import { handlePorticoMcp, type McpSurface, type PorticoMcpDeps } from '../mcp/server';
import { recordGatewayCall } from '../observability/metrics';
import { refusalOf } from '../refusals/refusal';
import { terminalText, visibleText } from '../util/visible-text';
import type { ToolDefinition } from './definitions';
import { findGatewayServerByResource, gatewayToolsOf, offeredTools, recordUpstreamStatus, upstreamTargetOf, type GatewayServer, type GatewayToolRow } from './servers';
import { callUpstreamTool } from './upstream';

export interface GatewayDeps extends Omit<PorticoMcpDeps, 'levels' | 'surface'> {
  atRestKey: Uint8Array;
  outboundPolicy: OutboundPolicy;
}

function configOf(server: GatewayServer, app: { identity: string }, issuer: string, tools: readonly GatewayToolRow[]): ProtectedResourceConfig {
  return {
    resource: server.resource,
    issuer,
    audience: app.identity,
    scopesSupported: sortScopes(new Set([BASELINE_SCOPE, ...tools.map((tool) => tool.permission)])),
    resourceName: server.name,
  };
}

/** RFC 9728 metadata of the server `resource` names, or undefined when there is none (or it is turned off). */
export async function gatewayResourceMetadata(db: Database, issuer: string, resource: string): Promise<Record<string, unknown> | undefined> {
  const found = await servingOf(db, resource);
  if (!found || found.server.disabledAt) return undefined;
  return protectedResourceMetadata(configOf(found.server, found.app, issuer, found.tools));
}

/**
 * The server a resource names, its app and its offered tools: read on every call, so kept by the per-process read
 * cache (rows, never decisions), dropped by any change to the server, its tools or its app (migration 0059's
 * triggers; a process's own writes at their commit).
 */
async function servingOf(db: Database, resource: string) {
  const read = async () => {
    const found = await findGatewayServerByResource(db, resource);
    return found && { ...found, tools: offeredTools(await gatewayToolsOf(db, found.server.id)) };
  };
  const cache = readCacheOf(db);
  return cache ? cache.read(`gateway-by-resource:${resource}`, read, (found) => [`gateway:${found.server.id}`, `apps:${found.app.id}`]) : read();
}

/** The arguments' SHA-256 in RFC 8785 form: what the audit keeps of a call (the arguments themselves may be secrets). */
function argumentsDigest(args: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalize(args) ?? '').digest('base64url');
}

/** What one request's call learned of the upstream, for its audit event. */
interface CallRecord {
  durationMs?: number;
  upstreamStatus?: number;
  /** The upstream answered the call with a tool error: its words are not kept (they may repeat the arguments). */
  upstreamToolError?: boolean;
}

/** A result's `_meta` keys of Portico's own (`io.portico/…`) are Portico's to say, never an upstream's. */
function withoutPorticoMeta(result: CallToolResult): CallToolResult {
  if (!result._meta) return result;
  const meta = Object.fromEntries(Object.entries(result._meta).filter(([key]) => !key.startsWith('io.portico/')));
  return { ...result, _meta: meta };
}

function proxyTool(server: GatewayServer, row: GatewayToolRow, deps: GatewayDeps, record: CallRecord): AnyKitTool<PorticoToolExtra> {
  const definition = row.approvedDefinition as ToolDefinition;
  // The metrics' label: `<org>/<server>`, as the server's address names it.
  const label = new URL(server.resource).pathname.slice('/mcp/'.length);
  return {
    name: row.name,
    ...(definition.title ? { title: terminalText(definition.title) } : {}),
    // The upstream's words are data: control characters and bidi overrides are shown as escapes, never passed on.
    description: terminalText(definition.description ?? ''),
    riskLevel: row.riskLevel as RiskLevel,
    requiredScopes: [row.permission],
    inputJsonSchema: definition.inputSchema,
    inputJsonSchemaKey: row.approvedDigest ?? undefined,
    async run(args, context) {
      // An OAuth server is reached with the person's own account. When they have none, a client that can open a page
      // for its person is asked to (a 2026-07-28 URL input request, or 2025-11-25 URL elicitation) and the call goes on
      // once they have connected; any other client is told where to connect.
      const person = { db: deps.db, userId: context.token.subject, issuer: deps.issuer };
      let target: Awaited<ReturnType<typeof upstreamTargetOf>>;
      try {
        target = await upstreamTargetOf(server, deps.atRestKey, person);
      } catch (error) {
        const asked = server.credentialKind === 'oauth' && refusalOf(error, 'gateway') ? await connectRound(server, deps.issuer, context) : undefined;
        if (asked === 'connected') target = await upstreamTargetOf(server, deps.atRestKey, person).catch(failedBefore(label));
        else if (asked) return asked;
        else throw failedBefore(label)(error);
      }
      try {
        const call = await callUpstreamTool(target, row.name, args as Record<string, unknown>, { policy: deps.outboundPolicy }, context.mcp?.mcpReq.signal);
        record.durationMs = call.durationMs;
        recordGatewayCall(label, call.result.isError ? 'tool_error' : 'ok', call.durationMs / 1000);
        // The call ran: nothing after it may turn it into a failure an agent would retry.
        if (server.status !== 'ok') await recordUpstreamStatus(deps.db, server.id, 'ok', null).catch(() => {});
        if (call.result.isError) record.upstreamToolError = true;
        return withoutPorticoMeta(call.result as CallToolResult);
      } catch (error) {
        const refusal = refusalOf(error, 'gateway');
        const failed = error as { durationMs?: number; upstreamStatus?: number };
        record.durationMs = failed.durationMs;
        record.upstreamStatus = failed.upstreamStatus;
        recordGatewayCall(label, refusal?.code ?? 'error', failed.durationMs === undefined ? undefined : failed.durationMs / 1000);
        // The server's status says whether it answers at all: not one call's JSON-RPC error, nor one person's expired account.
        if (refusal && refusal.code !== 'upstream_busy' && refusal.code !== 'upstream_rpc_error' && !(target.oauth && failed.upstreamStatus === 401)) {
          await recordUpstreamStatus(deps.db, server.id, refusal.code === 'upstream_invalid' ? 'invalid' : 'unreachable', refusal.code).catch(() => {});
        }
        throw error;
      }
    },
  };
}

/** A call refused before the upstream was reached: counted, and thrown on. */
function failedBefore(label: string): (error: unknown) => never {
  return (error) => {
    recordGatewayCall(label, refusalOf(error, 'gateway')?.code ?? 'error', undefined);
    throw error;
  };
}

/**
 * The person has no account at the server yet: offer the connect page inside the client, where it can show one.
 * 2026-07-28: an input-required result with a URL input request; the client's retry (whatever it answers) is simply the
 * call again, and the connection is read from the database, never from what the client says. 2025-11-25 (a session
 * whose client declared URL elicitation): the page is offered during the call, which goes on if they connected.
 * Undefined: the client can show nothing, or declined; the call is refused with the link.
 */
async function connectRound(server: GatewayServer, issuer: string, context: ToolContext & PorticoToolExtra): Promise<InputRequiredResult | 'connected' | undefined> {
  const url = `${issuer}${GATEWAY_CONNECT_PATH}/${server.id}`;
  const t = translator(await context.locale(), 'mcp.gateway');
  const message = t('connectOffer', { server: terminalText(server.name) });
  const envelope = context.mcp?.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as never] as { elicitation?: { url?: unknown } } | undefined;
  if (context.mcp && typeof envelope?.elicitation?.url === 'object' && envelope.elicitation.url !== null) {
    const answer = inputResponse(context.mcp.mcpReq.inputResponses, 'connect');
    // The retry after the page was offered: connected now, or refused with the link (never asked twice in a row).
    if (answer.kind !== 'missing') return answer.kind === 'elicit' && answer.action === 'accept' && (await isConnected(context.db, server.id, context.token.subject)) ? 'connected' : undefined;
    return inputRequired({ inputRequests: { connect: inputRequired.elicitUrl({ message, url }) } });
  }
  if (!context.elicit) return undefined;
  const offered = await context.elicit({ mode: 'url', approvalRequestId: `connect-${server.id}`, message, url, locale: await context.locale() });
  return offered.outcome === 'accept' && (await isConnected(context.db, server.id, context.token.subject)) ? 'connected' : undefined;
}

function auditGatewayCall(db: Database, server: GatewayServer, clientIp: string, record: CallRecord): (caller: ApiCaller) => (event: ToolEvent) => Promise<void> {
  return (caller) => async (event) => {
    await recordAuditEvent(db, {
      orgId: server.orgId,
      actor: caller.ownAgent ? { type: 'agent', id: caller.ownAgent.id, label: caller.ownAgent.name, ip: clientIp } : { type: 'person', id: caller.user.id, label: caller.user.email, ip: clientIp },
      act: event.actor ?? null,
      clientId: event.clientId,
      appId: server.appId,
      action: `gateway.tool_${event.outcome}`,
      subject: { type: 'gateway_tool', id: `${server.slug}/${event.tool}`, label: event.tool },
      details: {
        server: server.slug,
        tool: event.tool,
        riskLevel: event.riskLevel,
        outcome: event.outcome,
        argumentsDigest: argumentsDigest(event.arguments),
        ...(record.durationMs !== undefined ? { durationMs: Math.round(record.durationMs * 10) / 10 } : {}),
        ...(record.upstreamStatus !== undefined ? { upstreamStatus: record.upstreamStatus } : {}),
        ...(event.error ? { error: record.upstreamToolError ? 'the upstream tool reported an error' : event.error.slice(0, 300) } : {}),
      },
    });
  };
}

/**
 * A member of the server's organization, not disabled, and the agent acting for them (if any) one of that
 * organization's. The membership is read through the read cache (memberships' changes drop it at once).
 */
async function usesServer(db: Database, orgId: string, caller: ApiCaller): Promise<boolean> {
  // An agent acting as itself: the agent of this organization, enabled (authenticate read it: not disabled).
  if (caller.ownAgent) {
    const [agent] = await db.select({ id: agents.id }).from(agents).where(and(eq(agents.id, caller.ownAgent.id), eq(agents.orgId, orgId), isNull(agents.disabledAt))).limit(1);
    return agent !== undefined;
  }
  const member = async () => ((await isActiveMember(db, orgId, caller.user.id)) ? true : undefined);
  const cache = readCacheOf(db);
  const isMember = cache ? await cache.read(`active-member:${orgId}:${caller.user.id}`, member, () => [`users:${caller.user.id}`]) : await member();
  if (!isMember) return false;
  if (!caller.agentId) return true;
  const [agent] = await db.select({ id: agents.id }).from(agents).where(and(eq(agents.id, caller.agentId), eq(agents.orgId, orgId))).limit(1);
  return agent !== undefined;
}

/** The tool a tools/call names, when the message is one. */
function calledToolOf(message: unknown): string | undefined {
  const candidate = message as { method?: unknown; params?: { name?: unknown } } | null;
  return candidate?.method === 'tools/call' && typeof candidate.params?.name === 'string' ? candidate.params.name : undefined;
}

/**
 * One request to `<issuer>/mcp/<org>/<server>`. `resource` is the URL the request reached (the issuer and the
 * path): the server is the one whose resource identifier it is.
 */
export async function handleGatewayMcp(request: Request, resource: string, deps: GatewayDeps, bodyText?: string): Promise<Response> {
  const found = await servingOf(deps.db, resource);
  if (!found) return jsonRpcError(404, -32001, 'No MCP server is served at this address');
  const { server, app, tools } = found;
  if (server.disabledAt || app.disabledAt) return jsonRpcError(403, -32001, 'This MCP server is turned off in Portico');
  const config = configOf(server, app, deps.issuer, tools);
  const record: CallRecord = {};
  const byName = new Map(tools.map((row) => [row.name, row]));
  const proxies = tools.map((row) => proxyTool(server, row, deps, record));
  const surface: McpSurface = {
    // A 401 names every permission the server's tools need: a stock client asks for them all, and its token
    // carries those the person holds (requested ∩ effective).
    resource: { config, challengeScopes: config.scopesSupported },
    serverInfo: { name: `portico-gateway/${server.slug}`, version: '0.1.0' },
    instructions: `${visibleText(server.name)} through Portico. Tools marked approval_required answer a first call with a confirmation challenge that links to a page in Portico: give the link to the person, who confirms there; then call the same tool again with the same arguments and \`_confirmation_token\`.`,
    tools: proxies,
    levels: Object.fromEntries(tools.map((row) => [row.name, row.riskLevel as RiskLevel])),
    gate: gatewayConfirmationGate(deps.db, { issuer: deps.issuer, mode: deps.confirmationMode ?? 'human', appId: app.id, orgId: server.orgId, now: deps.now, notify: deps.notify }),
    onEvent: auditGatewayCall(deps.db, server, deps.clientIp, record),
    // Checked on every request, as Portico's own tools check the role: someone removed from the organization (or an
    // agent moved out of it) is refused at once, whatever their token's remaining lifetime.
    async authorize(caller) {
      // A server reached with each person's own account has none for an agent acting as itself.
      if (caller.ownAgent && server.credentialKind === 'oauth') return jsonRpcError(403, -32001, 'This MCP server connects each person’s own account; an agent acting as itself has none there');
      if (await usesServer(deps.db, server.orgId, caller)) return undefined;
      return oauthError(401, 'invalid_token', 'the person or agent of this token is no longer in the organization of this server', {
        'WWW-Authenticate': 'Bearer error="invalid_token", error_description="the person or agent of this token is no longer in the organization of this server"',
      });
    },
    insufficientScope(caller, message) {
      const name = calledToolOf(message);
      const row = name ? byName.get(name) : undefined;
      if (!row) return undefined;
      const needed = requiredScopesOf({ requiredScopes: [row.permission] });
      if (missingPermissions(caller.token.scopes, needed).length === 0) return undefined;
      return insufficientScope(config, caller.token, [...new Set([...caller.token.scopes, ...needed])], `the tool ${row.name}`);
    },
  };
  return handlePorticoMcp(request, { ...deps, levels: surface.levels, surface }, bodyText);
}
