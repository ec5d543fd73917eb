// Portico's MCP server at `<issuer>/api/mcp`, behind Portico API access tokens, in both MCP eras from one tool
// registry and one confirmation gate (the SDK v2 line, @modelcontextprotocol/server):
// - 2026-07-28 (modern): stateless. The SDK's dual-era handler (`createMcpHandler`, strict: `legacy: 'reject'`)
//   serves each request with a fresh server; `server/discover` answers the versions, the capabilities (with
//   Portico's risk model and its version) and the server info; an unsupported version gets -32004 with the list.
//   Nothing is keyed on a session: the client's capabilities come with every request, so any instance answers.
// - 2025-11-25 (legacy): Streamable HTTP with the SDK's web-standard transport and sessions in PostgreSQL
//   (lib/mcp/sessions.ts), so any instance serves any request: `initialize` creates one and stores the client's
//   capabilities, which choose the approval surface and allow elicitation on a later call's stream.
// `isLegacyRequest` (the SDK's own classification) routes between the two. The tools are Portico operations
// (lib/mcp/tools) behind the confirmation gate, whose challenges live in PostgreSQL too.
import { createHmac } from 'node:crypto';
import { jsonRpcError } from '../http/errors';
import {
  CLIENT_CAPABILITIES_META_KEY,
  createMcpHandler,
  createRequestStateCodec,
  isLegacyRequest,
  LATEST_PROTOCOL_VERSION,
  McpServer,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
  type McpHttpHandler,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { JWK } from 'jose';
import type { ConfirmationGate, ConfirmationMode, RiskLevel } from '../../app-kit/risk';
import { registerKitTools, requiredScopesOf, riskModelCapability, type AnyKitTool, type ConfirmationInputRequests, type ConfirmationState, type InlineConfirmation, type ToolEvent } from '../../app-kit/tools';
import { missingPermissions } from '../../app-kit/decision';
import type { ProtectedResourceConfig } from '../../app-kit/protected-resource';
import { auditToolEvent } from './audit';
import { authenticateApiRequest, type ApiCaller } from './authenticate';
import type { Database } from '../db/client';
import { readCappedText } from '../http/body';
import { advertisedElicitationModes, advertisesMcpApps, MCP_APP_MIME_TYPE, selectApprovalChannel } from '../approvals/channel';
import { APPROVAL_VIEW_URI, approvalViewHtml } from './approval-view';
import { CONFIRMATION_VIEW_URI, confirmationViewHtml } from './confirmation-view';
import { porticoConfirmationGate } from '../confirmations/store';
import type { NotifyDeps } from '../notifications/notify';
import { DEFAULT_APPROVAL_SURFACES, subjectLocale, type ApprovalRoundState, type ApprovalRounds, type ApprovalSurfaceConfig, type PorticoToolExtra } from './context';
import { translator } from '../i18n/catalogs';
import { elicitOver, isElicitationResponse, recordElicitationResponse, type Elicit } from './elicitation';
import { newSessionId, recordSession, extendSessionIfDue, endSession, type McpSession } from './sessions';
import { PORTICO_TOOLS } from './tools';

export const MAX_MCP_BODY_BYTES = 256 * 1024;

export interface PorticoMcpDeps {
  db: Database;
  issuer: string;
  publicJwks: JWK[];
  /** The effective risk level of every tool (resolved and checked at start). */
  levels: Readonly<Record<string, RiskLevel>>;
  /** Hosts a request may name, and origins a browser may send from (DNS rebinding protection). */
  allowedHosts: string[];
  allowedOrigins: string[];
  clientIp: string;
  /** Who confirms approval_required calls (PORTICO_CONFIRMATION_MODE); `human` when not given. */
  confirmationMode?: ConfirmationMode;
  /** The gate's clock; tests move it. */
  now?: () => Date;
  /** How approvals reach operators (PORTICO_APPROVAL_SURFACE, PORTICO_CENTRAL_ENABLED, PORTICO_OPERATOR_FRAME_ANCESTORS). */
  approvals?: ApprovalSurfaceConfig;
  /** How long a tool call waits for the answer to an elicitation (default 50 s). */
  elicitationWaitMs?: number;
  /** Mail to the people who decide a request or confirm a call (lib/notifications/notify.ts); none: nobody is mailed. */
  notify?: NotifyDeps;
  /**
   * Signs the state a 2026-07-28 client carries between the rounds of one call (a confirmation's token): the same
   * key on every instance, since the retry may reach any of them. Derived from the at-rest key (requestStateKey).
   */
  requestStateKey?: Uint8Array;
  /**
   * Serve another tool registry instead of Portico's own (a gateway server, lib/gateway/resource.ts): its protected
   * resource, tools, levels and audit. Everything else — both eras, sessions, the gate, the confirmation rounds — is
   * this file's, unchanged.
   */
  surface?: McpSurface;
}

/** A tool registry served through this file's MCP machinery in place of Portico's own operations. */
export interface McpSurface {
  resource: { config: ProtectedResourceConfig; challengeScopes: readonly string[] };
  serverInfo: { name: string; version: string };
  instructions: string;
  tools: readonly AnyKitTool<PorticoToolExtra>[];
  levels: Readonly<Record<string, RiskLevel>>;
  gate: ConfirmationGate;
  onEvent(caller: ApiCaller): (event: ToolEvent) => Promise<void>;
  /** A tools/call of a tool the token lacks the scope for: the 403 insufficient_scope answer, else undefined. */
  insufficientScope(caller: ApiCaller, message: unknown): Response | undefined;
  /** Whether the caller may use this registry at all now (a member of its organization): the refusal, else undefined. */
  authorize(caller: ApiCaller): Promise<Response | undefined>;
}

/** The key that signs 2026-07-28 request state, derived from the installation's at-rest key (never the key itself). */
export function requestStateKey(atRestKey: Uint8Array): Uint8Array {
  return createHmac('sha256', atRestKey).update('portico mcp request state v1').digest();
}

/** The tool whose definition points MCP Apps hosts at the approval view. */
const VIEW_TOOL = 'permissions.request_sensitive_access';

/** `locale`: the language of the person the calls are for, when the caller has it (its words are in it). */
export function gateFor(deps: PorticoMcpDeps, locale?: () => Promise<string>): ConfirmationGate {
  return porticoConfirmationGate(deps.db, { issuer: deps.issuer, mode: deps.confirmationMode ?? 'human', now: deps.now, locale, notify: deps.notify });
}


/**
 * One JSON Schema validator for the process: the SDK would otherwise build a new Ajv instance (formats and all) for
 * every request's server, and a server is made per request. Portico never asks it to validate anything per call.
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/**
 * A human confirmation offered inside the client: URL-mode elicitation of Portico's confirmation page (the person
 * signs in and steps up there, in Portico's own origin; the client only opens the link).
 */
function inlineConfirmationOver(elicit: Elicit, waitMs: number, locale: () => Promise<string>): InlineConfirmation {
  return {
    waitMs,
    async offer(challenge) {
      const language = await locale();
      const answer = await elicit({
        mode: 'url',
        approvalRequestId: challenge.confirmationUrl.slice(challenge.confirmationUrl.lastIndexOf('/') + 1),
        message: translator(language, 'mcp.gate')('inlineOffer', { tool: challenge.tool }),
        url: challenge.confirmationUrl,
        locale: language,
      });
      return answer.outcome === 'accept';
    },
  };
}

/**
 * The MCP server for one request. `calledTool`: the request is a tools/call of that tool, so only it is registered
 * (registering Portico's twelve tools for a call that runs one was most of a call's CPU); a name that matches none
 * registers all, so an unknown tool (or one the token's scopes do not reach) is refused exactly as before.
 */
function porticoServer(
  deps: PorticoMcpDeps,
  caller: ApiCaller,
  locale: () => Promise<string>,
  client: { capabilities?: unknown },
  confirmation: { elicit?: Elicit; inline?: InlineConfirmation; input?: ConfirmationInputRequests },
  calledTool?: string,
  rounds?: { codec: RequestStateCodec<RoundState>; approvals: ApprovalRounds },
): McpServer {
  const surface = deps.surface;
  const server = new McpServer(
    surface?.serverInfo ?? { name: 'portico', version: '0.1.0' },
    {
      jsonSchemaValidator,
      // The state of a 2026-07-28 confirmation round is verified before any tool runs (a forged or foreign one is
      // refused with -32602 by the SDK).
      ...(rounds ? { requestState: { verify: rounds.codec.verify } } : {}),
      capabilities: { experimental: riskModelCapability(deps.confirmationMode ?? 'human') },
      instructions: surface
        ? surface.instructions
        : (deps.confirmationMode ?? 'human') === 'human'
          ? 'Portico operations. Tools marked approval_required answer a first call with a confirmation challenge that links to a page in Portico: give the link to the person, who confirms there; then call the same tool again with the same arguments and `_confirmation_token`.'
          : 'Portico operations. Tools marked approval_required answer a first call with a confirmation challenge: show it to the person, and only if they agree call the same tool again with the same arguments and `_confirmation_token`.',
    },
  );
  const approvals = deps.approvals ?? DEFAULT_APPROVAL_SURFACES;
  const extra: PorticoToolExtra = {
    caller,
    db: deps.db,
    ip: deps.clientIp,
    issuer: deps.issuer,
    clientCapabilities: client.capabilities,
    approvals,
    elicit: confirmation.elicit,
    locale,
    notify: deps.notify,
    approvalRounds: rounds?.approvals,
  };
  // A gateway server's tools are not Portico's: no access-request view (its agents ask in Portico's own MCP).
  const appsView = !surface && approvals.surface === 'adaptive' && approvals.centralEnabled;
  const tools = surface?.tools ?? PORTICO_TOOLS;
  const levels = surface?.levels ?? deps.levels;
  const showsView = appsView && advertisesMcpApps(client.capabilities);
  // Held calls (human mode) are shown by the confirmation view, for clients that render MCP Apps.
  const confirmationView = approvals.surface === 'adaptive' && (deps.confirmationMode ?? 'human') === 'human';
  const showsConfirmationView = confirmationView && advertisesMcpApps(client.capabilities);
  const viewOf = (name: string) =>
    showsView && name === VIEW_TOOL ? APPROVAL_VIEW_URI : showsConfirmationView && levels[name] === 'approval_required' ? CONFIRMATION_VIEW_URI : undefined;
  // Only a tool this token may call is registered alone: otherwise all are, and the SDK answers as it always did.
  const called = calledTool === undefined ? [] : tools.filter((tool) => tool.name === calledTool && missingPermissions(caller.token.scopes, requiredScopesOf(tool)).length === 0);
  registerKitTools(server, called.length > 0 ? called : tools, {
    token: caller.token,
    gate: surface?.gate ?? gateFor(deps, locale),
    levels,
    extra,
    onEvent: surface ? surface.onEvent(caller) : auditToolEvent(deps.db, deps.clientIp, caller),
    inlineConfirmation: confirmation.inline,
    confirmationInput: confirmation.input,
    // Both keys: `ui.resourceUri` and the older `ui/resourceUri` some hosts still read.
    metaOf: (name) => {
      const view = viewOf(name);
      return view ? { ui: { resourceUri: view }, 'ui/resourceUri': view } : undefined;
    },
  });
  if (appsView) registerApprovalView(server, deps.issuer, approvals, locale);
  if (confirmationView) registerConfirmationView(server, deps.issuer, locale);
  return server;
}

/**
 * The MCP Apps resource. Its CSP metadata asks the host to allow framing Portico's origin only when the embedded
 * central is on (listed frame ancestors); the view needs no network access of its own.
 */
function registerApprovalView(server: McpServer, issuer: string, approvals: ApprovalSurfaceConfig, locale: () => Promise<string>): void {
  const ui = { csp: { connectDomains: [], resourceDomains: [], ...(approvals.frameAncestors.length > 0 ? { frameDomains: [new URL(issuer).origin] } : {}) }, prefersBorder: true };
  server.registerResource(
    'portico-authorizations',
    APPROVAL_VIEW_URI,
    { title: 'Portico access request', description: 'Shows a pending access request and where an operator decides it. It cannot approve anything.', mimeType: MCP_APP_MIME_TYPE, _meta: { ui } },
    async () => ({ contents: [{ uri: APPROVAL_VIEW_URI, mimeType: MCP_APP_MIME_TYPE, text: await approvalViewHtml(issuer, await locale()), _meta: { ui } }] }),
  );
}

/** The confirmation view: it frames nothing and fetches nothing (the person opens Portico's page in the browser). */
function registerConfirmationView(server: McpServer, issuer: string, locale: () => Promise<string>): void {
  const ui = { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true };
  server.registerResource(
    'portico-confirmations',
    CONFIRMATION_VIEW_URI,
    { title: 'Portico confirmation', description: 'Shows a call held for the person’s confirmation and the Portico page where they give it. It cannot confirm anything.', mimeType: MCP_APP_MIME_TYPE, _meta: { ui } },
    async () => ({ contents: [{ uri: CONFIRMATION_VIEW_URI, mimeType: MCP_APP_MIME_TYPE, text: await confirmationViewHtml(issuer, await locale()), _meta: { ui } }] }),
  );
}

function isInitialize(message: unknown): message is { method: 'initialize'; params?: { protocolVersion?: unknown } } {
  return typeof message === 'object' && message !== null && !Array.isArray(message) && (message as { method?: unknown }).method === 'initialize';
}

function isListen(message: unknown): boolean {
  return typeof message === 'object' && message !== null && !Array.isArray(message) && (message as { method?: unknown }).method === 'subscriptions/listen';
}

function isToolCall(message: unknown): message is { method: 'tools/call'; id: string | number; params?: { name?: unknown } } {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const candidate = message as { method?: unknown; id?: unknown };
  return candidate.method === 'tools/call' && (typeof candidate.id === 'string' || typeof candidate.id === 'number');
}

/**
 * The DNS rebinding checks (MCP 2025-11-25 §Security: validate Host and Origin) for the answers Portico writes
 * itself, before the SDK's transport (which makes the same checks for everything it handles).
 */
function rebindingRefusal(request: Request, deps: Pick<PorticoMcpDeps, 'allowedHosts' | 'allowedOrigins'>, options: { checkOrigin: boolean }): Response | undefined {
  if (!deps.allowedHosts.includes(request.headers.get('host') ?? '')) return jsonRpcError(403, -32000, 'Forbidden: this host is not allowed');
  const origin = request.headers.get('origin');
  if (options.checkOrigin && origin && !deps.allowedOrigins.includes(origin)) return jsonRpcError(403, -32000, 'Forbidden: this origin is not allowed');
  return undefined;
}

/** What the per-process dual-era handler's factory is handed for one request (through `authInfo`, pass-through). */
interface ModernCall {
  build(): McpServer;
}

/**
 * The SDK's handler for 2026-07-28 requests, one per process: strict (`legacy: 'reject'`, since 2025-11-25 traffic
 * is routed to the sessionful wiring before it), answers as one JSON body (the modern revision has no
 * server-to-client requests, so nothing needs a stream), and builds each request's server from what Portico
 * authenticated.
 */
let modernHandler: McpHttpHandler | undefined;
function modernMcpHandler(): McpHttpHandler {
  return (modernHandler ??= createMcpHandler(
    (context) => {
      const call = context.authInfo?.extra?.portico as ModernCall | undefined;
      if (!call) throw new Error('a 2026-07-28 request reached the MCP handler without an authenticated caller');
      return call.build();
    },
    { legacy: 'reject', maxRequestBodySize: MAX_MCP_BODY_BYTES },
  ));
}

/** What a 2026-07-28 round carries back: a human confirmation's challenge, or the access request it showed. */
type RoundState = ConfirmationState | ApprovalRoundState;

/** One codec per key: the signed state of a round, bound to the caller (subject, agent and client). */
const stateCodecs = new WeakMap<Uint8Array, RequestStateCodec<RoundState>>();
function roundStateCodec(key: Uint8Array): RequestStateCodec<RoundState> {
  let codec = stateCodecs.get(key);
  if (!codec) {
    codec = createRequestStateCodec<RoundState>({
      key,
      // The challenge itself lives 300 s; the state need not outlive it by much.
      ttlSeconds: 600,
      bind: (context) => {
        const caller = context.http?.authInfo?.extra?.caller as ApiCaller | undefined;
        // Fail closed: a state is never minted or accepted unbound.
        if (!caller) throw new Error('no caller to bind the request state to');
        return `${caller.token.subject}\0${caller.token.actor ?? ''}\0${caller.token.clientId}`;
      },
    });
    stateCodecs.set(key, codec);
  }
  return codec;
}

/** The client capabilities a 2026-07-28 request declares in its own `_meta` (the envelope). */
function declaredCapabilities(message: unknown): unknown {
  const meta = (message as { params?: { _meta?: Record<string, unknown> } } | null)?.params?._meta;
  return meta && typeof meta === 'object' ? meta[CLIENT_CAPABILITIES_META_KEY] : undefined;
}

/**
 * A 2026-07-28 request: no session, nothing stored between requests. The request's own client capabilities choose
 * the surfaces (docs/approval-surfaces.md): the MCP Apps views for a client that renders them; for a human
 * confirmation, a URL input request to Portico's confirmation page for a client that declared URL input requests
 * (the call answers input-required and the client's retry carries the challenge's token back in signed state);
 * otherwise the challenge text with its link, and the `_confirmation_token` retry, exactly as in 2025-11-25.
 * Access requests follow the same table: the MCP Apps view, else an input request (the central's page, or the form
 * that keeps or withdraws the request) whose retry reports on that same request, else the link.
 */
async function handleModernMcp(request: Request, message: unknown, deps: PorticoMcpDeps, caller: ApiCaller): Promise<Response> {
  // The SDK's entry makes no Host or Origin check of its own (MCP §Security: validate both).
  const refused = rebindingRefusal(request, deps, { checkOrigin: true });
  if (refused) return refused;
  // No change notifications to listen for (Portico's tools and resources do not change while it runs), and a
  // listen stream is held open: one caller could hold the process's whole allowance of them. Refused as unknown.
  if (isListen(message)) return Response.json({ jsonrpc: '2.0', id: (message as { id?: unknown }).id ?? null, error: { code: -32601, message: 'Method not found: subscriptions/listen' } }, { headers: { 'Cache-Control': 'no-store' } });
  const approvals = deps.approvals ?? DEFAULT_APPROVAL_SURFACES;
  const capabilities = declaredCapabilities(message);
  const humanInline = approvals.surface === 'adaptive' && (deps.confirmationMode ?? 'human') === 'human' && !advertisesMcpApps(capabilities) && advertisedElicitationModes(capabilities).url;
  const locale = subjectLocale(deps.db, caller);
  const codec = deps.requestStateKey ? roundStateCodec(deps.requestStateKey) : undefined;
  const input: ConfirmationInputRequests | undefined =
    humanInline && codec
      ? {
          codec: codec as RequestStateCodec<ConfirmationState>,
          message: async (tool) => translator(await locale(), 'mcp.gate')('inlineOffer', { tool }),
          waitMs: deps.elicitationWaitMs ?? 50_000,
        }
      : undefined;
  const rounds = codec && { codec, approvals: { mint: (state: ApprovalRoundState, context: ServerContext) => codec.mint(state, context) } };
  const toolCall = isToolCall(message) ? message : undefined;
  const call: ModernCall = {
    build: () => porticoServer(deps, caller, locale, { capabilities }, { input }, typeof toolCall?.params?.name === 'string' ? toolCall.params.name : undefined, rounds),
  };
  return modernMcpHandler().fetch(request, {
    parsedBody: message,
    authInfo: { token: '', clientId: caller.token.clientId, scopes: [...caller.token.scopes], expiresAt: caller.token.expiresAt, extra: { portico: call, caller } },
  });
}

/**
 * `bodyText`: the request's body when the caller has already read it (server.ts reads it from node:http, and then
 * builds the Request without one, which spares a web stream each way).
 */
export async function handlePorticoMcp(request: Request, deps: PorticoMcpDeps, bodyText?: string): Promise<Response> {
  const sessionId = request.headers.get('mcp-session-id');
  // The session is read with the person, in the caller's statement (the header is only a lookup key: an initialize
  // request ignores it).
  const authentication = await authenticateApiRequest(request, deps, undefined, { mcpSessionId: sessionId ?? undefined, resource: deps.surface?.resource });
  if (!authentication.ok) return authentication.response;
  const { caller } = authentication;
  const unauthorized = await deps.surface?.authorize(caller);
  if (unauthorized) return unauthorized;

  if (request.method === 'DELETE') {
    // Answered here, not by the transport: the same DNS rebinding check it would make.
    const refused = rebindingRefusal(request, deps, { checkOrigin: false });
    if (refused) return refused;
    if (!sessionId) return jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    return (await endSession(deps.db, sessionId, caller.token, caller.ownAgent ? { ownerUserId: caller.user.id } : undefined)) ? new Response(null, { status: 204 }) : jsonRpcError(404, -32001, 'Session not found');
  }
  // No server-initiated stream: the server never sends requests of its own outside a response.
  if (request.method !== 'POST') return new Response(null, { status: 405, headers: { Allow: 'POST, DELETE' } });

  const body = bodyText ?? (await readCappedText(request, MAX_MCP_BODY_BYTES));
  if (body === undefined) return jsonRpcError(413, -32600, `Request body larger than ${MAX_MCP_BODY_BYTES} bytes`);
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return jsonRpcError(400, -32700, 'Parse error: the body is not JSON');
  }
  // A tool the token's scopes do not reach: 403 insufficient_scope naming it (the SDK's clients step up on it).
  const insufficient = deps.surface?.insufficientScope(caller, message);
  if (insufficient) return insufficient;
  // The SDK's own classification: a request with the 2026-07-28 envelope (or a modern version header) is modern.
  if (!(await isLegacyRequest(request, message))) return handleModernMcp(request, message, deps, caller);

  const initializing = isInitialize(message);
  let session: McpSession | undefined;
  if (!initializing) {
    if (!sessionId) return jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    // Unknown, expired, or opened by someone else: the client starts a new session (MCP 2025-11-25 §Session Management).
    session = caller.mcpSession;
    if (!session) return jsonRpcError(404, -32001, 'Session not found');
    await extendSessionIfDue(deps.db, session);
  }

  // A client's answer to one of Portico's elicitations: kept for the tool call waiting on it (any instance).
  if (session && isElicitationResponse(message)) {
    // The same DNS rebinding checks the transport would make.
    const refused = rebindingRefusal(request, deps, { checkOrigin: true });
    if (refused) return refused;
    await recordElicitationResponse(deps.db, session.id, message);
    return new Response(null, { status: 202 });
  }

  // A tool call may elicit only when the approval channel rule picks elicitation for this session (adaptive mode,
  // advertised, no MCP Apps first): its answer is then a stream, on which the elicitation travels before the result.
  const approvals = deps.approvals ?? DEFAULT_APPROVAL_SURFACES;
  const toolCall = isToolCall(message) ? message : undefined;
  const sessionChannel = session ? selectApprovalChannel({ ...approvals, centralEligible: true, clientCapabilities: session.clientCapabilities }) : 'cli';
  // Human confirmations are offered inline too (adaptive mode): by the confirmation view where the client renders
  // MCP Apps (the same order as approvals), else by URL elicitation where it can open a URL for its person.
  const confirmsInline =
    approvals.surface === 'adaptive' &&
    (deps.confirmationMode ?? 'human') === 'human' &&
    session !== undefined &&
    !advertisesMcpApps(session.clientCapabilities) &&
    advertisedElicitationModes(session.clientCapabilities).url;
  const mayElicit = toolCall !== undefined && (sessionChannel === 'elicitation_url' || sessionChannel === 'elicitation_form' || confirmsInline);

  const newId = initializing ? newSessionId() : undefined;
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: newId ? () => newId : undefined,
    enableJsonResponse: !mayElicit,
    enableDnsRebindingProtection: true,
    allowedHosts: deps.allowedHosts,
    allowedOrigins: deps.allowedOrigins,
  });
  const elicit =
    mayElicit && session && toolCall
      ? elicitOver({ db: deps.db, sessionId: session.id, send: (outgoing) => transport.send(outgoing as never, { relatedRequestId: toolCall.id }), waitMs: deps.elicitationWaitMs ?? 50_000 })
      : undefined;
  // The person's language, looked up only if a text of this request needs it.
  const locale = subjectLocale(deps.db, caller);
  const server = porticoServer(
    deps,
    caller,
    locale,
    { capabilities: session?.clientCapabilities },
    { elicit, inline: confirmsInline && elicit ? inlineConfirmationOver(elicit, deps.elicitationWaitMs ?? 50_000, locale) : undefined },
    typeof toolCall?.params?.name === 'string' ? toolCall.params.name : undefined,
  );
  await server.connect(transport);
  if (mayElicit) {
    // A stream: the tool is still running when the response starts. The server closes once the stream ends.
    let response: Response;
    try {
      response = await transport.handleRequest(request, { parsedBody: message });
    } catch (error) {
      void server.close();
      throw error;
    }
    if (!response.body) {
      void server.close();
      return response;
    }
    const closeAtEnd = new TransformStream<Uint8Array, Uint8Array>({ flush: () => void server.close() });
    return new Response(response.body.pipeThrough(closeAtEnd), { status: response.status, headers: response.headers });
  }
  // A JSON answer is complete when it returns: the server and its transport have nothing left open (no stream, no
  // request of their own waiting, no timer: the transport's keep-alive runs for streams only; `connect` registers
  // nothing outside the two objects), so they are left to the garbage collector rather than closed. Closing made an
  // SDK error object (its stack captured) and ran the close handlers on every call, for nothing (docs/benchmarks.md).
  // Re-read the SDK's transport and Protocol.connect for this on every SDK upgrade.
  const response = await transport.handleRequest(request, { parsedBody: message });
  if (newId && response.status === 200) {
    const requested = isInitialize(message) ? message.params?.protocolVersion : undefined;
    await recordSession(deps.db, {
      id: newId,
      token: caller.token,
      ...(caller.ownAgent ? { ownAgent: { ownerUserId: caller.user.id } } : {}),
      protocolVersion: typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
      clientInfo: server.server.getClientVersion() ?? {},
      clientCapabilities: server.server.getClientCapabilities() ?? {},
    });
  }
  return response;
}
