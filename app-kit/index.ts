// Portico's app kit: what a published app needs to make its `/api/mcp` and its sign-in correct by default.
//
// - the protected resource: RFC 9728 metadata, RFC 6750/9728 challenges, access tokens verified locally with the
//   audience fixed to the app's own identity (protected-resource.ts);
// - its tools with the four risk levels and the confirmation gate Portico's own tools have (risk.ts, tools.ts);
// - its surface: declared to Portico, and reported unfiltered to Portico's signed introspection (surface.ts);
// - signing people in through Portico with OpenID Connect (sign-in.ts), and signing them out when Portico says their
//   session ended (back-channel logout tokens, backchannel-logout.ts; Shared Signals events, security-events.ts).
//
// The kit imports nothing from Portico's lib/: Portico imports the shared parts from here. See app-kit/README.md.
import { memorySubjectRevocations, type SubjectRevocations } from './revocations';
import { createHmac, randomBytes } from 'node:crypto';
import { readBounded } from './body';
import { createMcpHandler, createRequestStateCodec, McpServer, type AuthInfo } from '@modelcontextprotocol/server';
import { normalizeResourcePath } from './resource-path';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import {
  authorizeBearer,
  insufficientScope,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
  remoteKeys,
  type ProtectedResourceConfig,
  type ResourceAuthorization,
  type VerifiedAccessToken,
  verifyAccessToken,
} from './protected-resource';
import { createConfirmationGate, memoryConfirmationStore, resolveRiskLevels, RiskConfigurationError, RISK_MODEL_VERSION, type ConfirmationBinding, type ConfirmationStore, type RiskLevel } from './risk';
import {
  DECLARATION_PATH,
  GRANT_CHECK_PATH,
  CONFIRMATIONS_PATH,
  memoryReplayGuard,
  RESPONSE_SIGNATURE_HEADER,
  SIGNATURE_HEADER,
  SIGNATURE_REFUSALS,
  signRequest,
  signResponse,
  verifySignedRequest,
  type ReplayGuard,
  type SurfaceDocument,
} from './surface';
import { APPROVED_ACTIONS_PATH, ApprovedActionRefusal, detailCovering, type ApprovedAction, type ExpectedAction } from './approved-actions';
import { registerKitTools, requiredScopesOf, riskModelCapability, surfaceOfTools, type ConfirmationInputRequests, type ConfirmationState, type KitTool, type ToolEvent } from './tools';
import { missingPermissions } from './decision';

// What apps use. Portico itself imports the shared modules (risk.ts, surface.ts, …) directly.
export type { ResourceAuthorization, VerifiedAccessToken, KitTool, ToolEvent, SurfaceDocument, RiskLevel, ConfirmationStore, ReplayGuard };
export type { ToolContext } from './tools';
export type { SurfaceTool } from './surface';
export { defineTool } from './tools';
export { createSignIn, type SignIn, type SignInConfig, type PendingSignIn, type SignedInPerson } from './sign-in';
export { memoryConfirmationStore, RISK_LEVELS, RISK_MODEL_VERSION, CONFIRMATION_TOKEN_PARAMETER, RiskConfigurationError } from './risk';
export { SURFACE_PATH, DECLARATION_PATH, memoryReplayGuard } from './surface';
export { normalizeResourcePath, resourcePathCovers } from './resource-path';
export { decideOperation, missingPermissions, type OperationDecision, type OperationFacts } from './decision';
export { ApprovedActionRefusal, APPROVED_ACTIONS_PATH, type ApprovedAction, type ExpectedAction } from './approved-actions';
export { createSecurityEventReceiver, SecurityEventRefusal, CAEP_SESSION_REVOKED, RISC_ACCOUNT_DISABLED, RISC_ACCOUNT_PURGED, type SecurityEvent, type SecurityEventReceiverConfig } from './security-events';
export { memorySubjectRevocations, type SubjectRevocations } from './revocations';
export { createLogoutReceiver, LogoutTokenRefusal, BACKCHANNEL_LOGOUT_EVENT, type LogoutReceiver, type LogoutReceiverConfig, type BackchannelLogout } from './backchannel-logout';
export { createApprovalRequests, authorizationDetailOf, type ApprovalRequests, type ApprovalRequest, type ApprovalAnswer, type ApprovalRequestsConfig } from './approval-requests';

/**
 * The contract between the kit and Portico. Portico states the versions it accepts (lib/clients/app-environment.ts;
 * this one is its newest) and a test compares the two, so they cannot drift apart silently. 9: `/api/mcp` serves
 * MCP 2026-07-28 (stateless, per-request envelope, `server/discover`) beside 2025-11-25, and asks a 2026-07-28
 * client for a human confirmation as a URL input request. A surface declared by a version-8 kit is still accepted.
 */
export const APP_KIT_CONTRACT_VERSION = 9;

/** The identity variables Portico gives each app (the console shows them once, at creation). */
export interface AppIdentity {
  /** PORTICO_ISSUER */
  issuer: string;
  /** PORTICO_APP_IDENTITY: the audience every token for this app carries. Never taken from a token. */
  appIdentity: string;
  /** The app's own origin: its MCP endpoint is `<origin>/api/mcp`, the resource clients name. */
  origin: string;
  /** PORTICO_CLIENT_ID: names the app when it declares its surface. */
  clientId?: string;
  /** PORTICO_SURFACE_SECRET: signs the surface declaration and checks Portico's introspection calls. */
  surfaceSecret?: string;
  /** Scopes to list in the metadata besides `mcp` (the baseline) and those the tools need, which are listed anyway. */
  scopesSupported?: readonly string[];
  resourceName?: string;
}

export interface AppKitOptions extends AppIdentity {
  /** The app's MCP server name and version (serverInfo). */
  server?: { name: string; version: string };
  tools?: readonly KitTool<never>[];
  /** Operator overrides: may raise a tool's level, never lower it (a lowering throws at start, naming the tool). */
  riskOverrides?: Readonly<Record<string, string>>;
  /** Tools that must be approval_required whatever the configuration. */
  criticalTools?: readonly string[];
  /**
   * Who confirms approval_required calls. `portico`: the person the token belongs to (or, for an agent acting on its
   * own, an operator of the app), in Portico, with step-up; the challenges live in Portico (signed calls, needs
   * clientId and surfaceSecret), and the caller's own retry waits until then. `in_band` (the default, for
   * compatibility): the caller relays the token itself; weaker, nothing proves a human saw the challenge.
   */
  confirmations?: 'portico' | 'in_band';
  /** In-band only: where challenges live; one process's memory by default (use a shared store with several instances). */
  confirmationStore?: ConfirmationStore;
  /** Nonces of Portico's introspection calls; one process's memory by default. */
  replayGuard?: ReplayGuard;
  /** Called for every call from `caution` up: challenge issued, successful run, failed run. Audit them. */
  onToolEvent?: (event: ToolEvent) => void | Promise<void>;
  /** Serve the introspection route (default true). */
  introspection?: boolean;
  /**
   * Subjects whose tokens are refused since Portico said they were disabled (`refuseTokensOf`, fed by the security
   * event receiver); one process's memory by default (./revocations.ts).
   */
  subjectRevocations?: SubjectRevocations;
  now?: () => Date;
}

export interface AppKit {
  /** The resource identifier (RFC 8707) of the app's MCP endpoint. */
  resource: string;
  /** The paths at which the metadata must be served (path-suffixed and root form, RFC 9728 §3). */
  metadataPaths: readonly string[];
  /** The RFC 9728 metadata response. */
  protectedResourceMetadata(): Response;
  /**
   * The gate in front of `/api/mcp`: a verified token, or the 401/403 response to send (with the challenge naming
   * the metadata and the scope needed). `azp` is reported for audit and never decides anything.
   */
  authorize(request: Request, requiredScopes?: readonly string[]): Promise<ResourceAuthorization>;
  /**
   * `/api/mcp` whole: DNS-rebinding protection, the bearer gate, then the app's tools behind the confirmation gate,
   * served to both MCP eras, stateless: 2026-07-28 (per-request envelope, `server/discover`) and 2025-11-25.
   */
  handleMcp(request: Request, onAccepted?: (token: VerifiedAccessToken) => void): Promise<Response>;
  /**
   * An MCP server with the tools this token may use, for apps that run their own transport (it verifies the
   * 2026-07-28 `requestState` of a confirmation round with the kit's codec).
   */
  mcpServer(token: VerifiedAccessToken): McpServer;
  /** The app's whole surface: every tool, its scopes and effective level, whoever asks. */
  surface(): SurfaceDocument;
  /** `GET /api/mcp/surface`: the signed introspection route Portico calls (404 when switched off or no secret). */
  handleSurfaceRequest(request: Request): Promise<Response>;
  /** Declares the surface to Portico (a signed call); throws with Portico's error when refused. */
  declareSurface(): Promise<{ declaredAt: string; tools: number }>;
  /**
   * Asks Portico's approval broker whether an operation is allowed now (a signed call). Ask before every operation
   * a grant covers: a revoked or expired grant answers `granted: false` at once.
   */
  checkGrant(query: GrantCheck): Promise<{ granted: boolean; grantId?: string; expiresAt?: string | null }>;
  /**
   * Refuses, from now on, every token of this subject (person or agent, as `sub` or `act.sub`) issued at or before
   * `at` (default: now): call it for RISC account-disabled and account-purged events (createSecurityEventReceiver's
   * onEvent). Tokens issued afterwards pass again.
   */
  refuseTokensOf(subject: string, at?: Date): Promise<void>;
  /**
   * Before acting on an approval a person gave through CIBA: checks the access token (this app's audience), that
   * its `authorization_details` cover exactly this action (the tool and the digest of these arguments, or the action
   * described in words), and records its use with Portico (a signed call). A second use of the same token, on any
   * instance, throws `ApprovedActionRefusal('already_used')`; anything else that does not hold throws too.
   */
  verifyApprovedAction(token: string, expected: ExpectedAction): Promise<ApprovedAction>;
}

export interface GrantCheck {
  /** The person (the token's `sub`). */
  subject: string;
  /** The agent acting for them (the token's `act.sub`), if any. */
  actor?: string;
  kind: 'sensitive_access' | 'root_access';
  resource?: string;
  profile?: 'read' | 'work' | 'compose';
}

export function createAppKit(options: AppKitOptions): AppKit {
  const origin = new URL(options.origin).origin;
  const config: ProtectedResourceConfig = {
    resource: `${origin}/api/mcp`,
    issuer: options.issuer,
    audience: options.appIdentity,
    // RFC 9728 `scopes_supported`: the baseline, every scope a tool needs, and any the app names besides.
    scopesSupported: [...new Set(['mcp', ...(options.tools ?? []).flatMap((tool) => requiredScopesOf(tool)), ...(options.scopesSupported ?? [])])],
    resourceName: options.resourceName,
    revocations: options.subjectRevocations ?? memorySubjectRevocations(() => (options.now?.() ?? new Date()).getTime() / 1000),
  };
  // Portico's JWKS, fetched once and cached; an unknown `kid` refetches it (rate-limited by jose).
  const keys = remoteKeys(options.issuer);
  const tools = options.tools ?? [];
  const toolScopes = new Map(tools.map((tool) => [tool.name, requiredScopesOf(tool)]));
  // Resolved once, at start: a configuration that lowers a level throws here, before any request is served.
  const levels = resolveRiskLevels(Object.fromEntries(tools.map((tool) => [tool.name, tool.riskLevel])), options.riskOverrides, options.criticalTools);
  const confirmedInPortico = options.confirmations === 'portico';
  if (confirmedInPortico && options.confirmationStore) throw new RiskConfigurationError('confirmations: "portico" keeps the challenges in Portico; do not pass a confirmationStore as well.', '*');
  if (confirmedInPortico && (!options.clientId || !options.surfaceSecret)) throw new RiskConfigurationError('confirmations: "portico" needs PORTICO_CLIENT_ID and PORTICO_SURFACE_SECRET (the calls are signed).', '*');
  // Declared below; the store only calls it once a request is served.
  const portico = (path: string, payload: unknown, what: string) => signedCall<Record<string, unknown>>(path, payload, what);
  const gate = createConfirmationGate({
    store: confirmedInPortico ? porticoConfirmationStore(portico) : (options.confirmationStore ?? memoryConfirmationStore()),
    mode: confirmedInPortico ? 'human' : 'in_band',
    now: options.now,
  });
  const replay = options.replayGuard ?? memoryReplayGuard(options.now);
  const serverInfo = options.server ?? { name: options.resourceName ?? 'app', version: '1.0.0' };

  const surface = (): SurfaceDocument => ({
    kit_contract_version: APP_KIT_CONTRACT_VERSION,
    risk_model_version: RISK_MODEL_VERSION,
    resource: config.resource,
    tools: surfaceOfTools(tools, levels),
  });

  // One validator for every per-request server: the SDK would build a new Ajv instance for each.
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  // The state a 2026-07-28 confirmation round carries through the client (the challenge's token), signed so that
  // the retry cannot name another challenge. With a surface secret the key is derived from it, so every instance of
  // the app verifies what any of them minted. Without one it is random per process: the client's retry must then
  // reach the instance that asked (one process, or sticky routing), or it is refused as invalid state.
  const requestStateCodec = createRequestStateCodec<ConfirmationState>({
    key: options.surfaceSecret ? createHmac('sha256', options.surfaceSecret).update('portico-kit-request-state').digest() : randomBytes(32),
    // Bound to the caller: another person's or client's retry cannot echo it (refused with -32602 before any tool).
    bind: (context) => {
      const token = context.http?.authInfo?.extra?.[VERIFIED_TOKEN] as VerifiedAccessToken | undefined;
      // Fail closed: a 2026-07-28 confirmation round needs the verified token handleMcp hands the SDK; an app serving
      // mcpServer() on a transport of its own gets no round state, neither minted nor accepted.
      if (!token) throw new Error('no verified token to bind the request state to');
      return `${token.subject}\0${token.actor ?? ''}\0${token.clientId}`;
    },
  });
  const confirmationInput: ConfirmationInputRequests = {
    codec: requestStateCodec,
    message: async (tool) => `Confirm "${tool}" on Portico's page: the person this call acts for approves it there, then it runs.`,
    waitMs: 50_000,
  };
  const mcpServer = (token: VerifiedAccessToken) => {
    const server = new McpServer(serverInfo, {
      jsonSchemaValidator,
      // server/discover (2026-07-28) and initialize (2025-11-25) both announce the risk model.
      capabilities: { experimental: riskModelCapability(gate.mode) },
      requestState: { verify: requestStateCodec.verify },
    });
    registerKitTools(server, tools, { token, gate, levels, extra: {}, onEvent: options.onToolEvent, confirmationInput });
    return server;
  };
  // One handler for both eras: 2026-07-28 requests (a `_meta` envelope) on the modern path, anything else through
  // the SDK's stateless 2025 fallback, each answered by a server made for that request from the token verified in
  // handleMcp. The SDK takes the token only as given (authInfo), never from the request's headers.
  const mcpHandler = createMcpHandler(({ authInfo }) => mcpServer(verifiedTokenOf(authInfo)), { legacy: 'stateless', maxRequestBodySize: MCP_BODY_LIMIT });

  /** A call to Portico signed with the surface secret, the client id as key id: its status and JSON answer. */
  async function signedPost<T>(path: string, payload: unknown, what: string): Promise<{ status: number; answer: T & { error?: string; error_description?: string } }> {
    if (!options.surfaceSecret || !options.clientId) throw new Error(`${what} needs PORTICO_CLIENT_ID and PORTICO_SURFACE_SECRET`);
    const target = new URL(`${options.issuer}${path}`);
    const body = JSON.stringify(payload);
    const { header } = signRequest(options.surfaceSecret, { method: 'POST', path: target.pathname, body }, { keyId: options.clientId, now: options.now?.() });
    const response = await fetch(target, { method: 'POST', body, headers: { 'Content-Type': 'application/json', [SIGNATURE_HEADER]: header }, signal: AbortSignal.timeout(10_000) });
    return { status: response.status, answer: (await response.json().catch(() => ({}))) as T & { error?: string; error_description?: string } };
  }

  /** A signed call that must succeed: Portico's refusal is thrown with its reason. */
  async function signedCall<T>(path: string, payload: unknown, what: string): Promise<T> {
    const { status, answer } = await signedPost<T>(path, payload, what);
    if (status < 200 || status > 299) throw new Error(`Portico refused ${what} (${status}): ${answer.error_description ?? answer.error ?? 'no reason given'}`);
    return answer;
  }

  const url = new URL(origin);
  return {
    resource: config.resource,
    metadataPaths: [new URL(protectedResourceMetadataUrl(config.resource)).pathname, '/.well-known/oauth-protected-resource'],
    protectedResourceMetadata: () => Response.json(protectedResourceMetadata(config), { headers: { 'Cache-Control': 'max-age=300' } }),
    authorize: (request, requiredScopes = ['mcp']) => authorizeBearer(request, config, keys, requiredScopes),
    mcpServer,
    surface,

    async handleMcp(request, onAccepted) {
      // DNS rebinding protection, first: the SDK's handler does none. Only the app's own host, and browsers only
      // from its own origin, both compared whole (the SDK's host and origin helpers compare hostnames only, any
      // port and, for an origin, any scheme).
      const refused = rebindingRefusal(request, url.host, origin);
      if (refused) return refused;
      // Any valid token for this app passes the gate; what it may do is per tool (a token holding only
      // `notes:read` sees and calls only the tools that need no more). A client without one is told every scope
      // the tools need (MCP authorization, scope selection: the client asks for what the challenge names). Asking
      // for them grants nothing more: Portico's token carries what was asked intersected with what the person or
      // agent holds, and the consent screen says which were asked and not held. With only `mcp` named, a stock
      // client (one that follows the challenge and then refreshes on a 403) never reached a permission-gated tool.
      const gateResult = await authorizeBearer(request, config, keys, [], config.scopesSupported);
      if (!gateResult.ok) return gateResult.response;
      // A call of a tool the token lacks scopes for: 403 insufficient_scope naming them (RFC 6750 §3.1, MCP
      // authorization's scope challenge), so the client can ask the person for more. A 2026-07-28 tools/call has
      // the same method and params.name (its envelope is in params._meta).
      const messages = await messagesOf(request);
      const needed = scopesNeededByCall(messages, toolScopes, gateResult.token);
      if (needed) return insufficientScope(config, gateResult.token, needed.scopes, `the tool ${needed.tool}`);
      // The kit's tools never change while the app runs, so there is nothing to listen for; and a listen stream is
      // held open, so one caller could hold the handler's whole allowance of them. Refused as an unknown method.
      const listen = messages.find((message) => (message as { method?: unknown } | null)?.method === 'subscriptions/listen') as { id?: unknown } | undefined;
      if (listen) return Response.json({ jsonrpc: '2.0', id: listen.id ?? null, error: { code: -32601, message: 'Method not found: subscriptions/listen' } }, { headers: { 'Cache-Control': 'no-store' } });
      onAccepted?.(gateResult.token);
      return mcpHandler.fetch(request, { authInfo: authInfoOf(request, gateResult.token, config.resource) });
    },

    async handleSurfaceRequest(request) {
      // Without a secret, or switched off, the route does not exist: Portico reports "unsupported".
      if (options.introspection === false || !options.surfaceSecret) return new Response('Not found', { status: 404 });
      if (request.method !== 'GET') return new Response(null, { status: 405, headers: { Allow: 'GET' } });
      const requestUrl = new URL(request.url);
      const check = await verifySignedRequest(
        options.surfaceSecret,
        { method: 'GET', path: `${requestUrl.pathname}${requestUrl.search}`, body: '', header: request.headers.get(SIGNATURE_HEADER) },
        replay,
        options.now?.(),
      );
      if (!check.ok) return Response.json({ error: 'invalid_signature', error_description: SIGNATURE_REFUSALS[check.reason] }, { status: 401, headers: { 'Cache-Control': 'no-store' } });
      const body = JSON.stringify(surface());
      return new Response(body, {
        status: 200,
        headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', [RESPONSE_SIGNATURE_HEADER]: signResponse(options.surfaceSecret, check.nonce, 200, body) },
      });
    },

    async declareSurface() {
      const answer = await signedCall<{ declared_at?: string; tools?: number }>(DECLARATION_PATH, surface(), 'the surface declaration');
      return { declaredAt: String(answer.declared_at), tools: Number(answer.tools) };
    },

    async verifyApprovedAction(token, expected) {
      // The token first (signature, issuer, this app's audience, expiry), then the approval it carries, then its use.
      const check = await verifyAccessToken(token, config, keys);
      if (!check.ok) throw new ApprovedActionRefusal('invalid_token', check.error.description);
      const detail = detailCovering(check.token.claims, expected);
      if (!detail) throw new ApprovedActionRefusal('not_approved', 'the token carries no approval of this action (another tool, other arguments, or another action)');
      const tokenId = check.token.claims.jti;
      if (typeof tokenId !== 'string') throw new ApprovedActionRefusal('invalid_token', 'the token has no jti');
      const { status, answer } = await signedPost<{ used?: boolean }>(APPROVED_ACTIONS_PATH, { token }, 'the approved action');
      if (status === 409) throw new ApprovedActionRefusal('already_used', 'this approval was used already: ask the person again');
      if (status !== 200 || answer.used !== true) throw new ApprovedActionRefusal('invalid_token', `Portico refused the approval (${status}): ${answer.error_description ?? answer.error ?? 'no reason given'}`);
      return { subject: check.token.subject, detail, tokenId };
    },

    async refuseTokensOf(subject, at) {
      await config.revocations!.revoke(subject, Math.floor((at ?? options.now?.() ?? new Date()).getTime() / 1000));
    },

    async checkGrant(query) {
      // The same normalization Portico applied when the request was made: a path that cannot name one thing is no
      // grant, and is not sent.
      let resource = query.resource;
      if (query.kind === 'sensitive_access') {
        const normalized = resource === undefined ? undefined : normalizeResourcePath(resource);
        if (!normalized?.ok) return { granted: false };
        resource = normalized.path;
      }
      const answer = await signedCall<{ granted?: boolean; grant_id?: string; expires_at?: string | null }>(GRANT_CHECK_PATH, { ...query, resource }, 'the grant check');
      // Anything but an explicit true is no grant.
      return answer.granted === true ? { granted: true, grantId: answer.grant_id, expiresAt: answer.expires_at ?? null } : { granted: false };
    },
  };
}

/** How much of a request body is read to find the tool it calls, and the MCP handler's own limit (413 above it). */
const MCP_BODY_LIMIT = 256 * 1024;

/** Where the verified token travels to the per-request server factory, inside the SDK's authInfo. */
const VERIFIED_TOKEN = 'io.portico/verified-access-token';

/** The SDK's authInfo for a token the kit verified: the SDK passes it through to the factory and the handlers. */
function authInfoOf(request: Request, token: VerifiedAccessToken, resource: string): AuthInfo {
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '')?.[1] ?? '';
  return { token: bearer, clientId: token.clientId, scopes: [...token.scopes], expiresAt: token.expiresAt, resource: new URL(resource), extra: { [VERIFIED_TOKEN]: token } };
}

function verifiedTokenOf(authInfo: AuthInfo | undefined): VerifiedAccessToken {
  const token = authInfo?.extra?.[VERIFIED_TOKEN] as VerifiedAccessToken | undefined;
  // handleMcp always passes one: a server without a verified token is never built.
  if (!token) throw new Error('the app kit serves MCP only with a verified access token');
  return token;
}

/**
 * DNS rebinding protection in front of the MCP handler: the Host must be the app's own (host and port), an Origin,
 * when a browser sends one, the app's own origin. Answered as the SDK answers it (403, JSON-RPC -32000).
 */
function rebindingRefusal(request: Request, host: string, origin: string): Response | undefined {
  const refuse = (message: string) => Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status: 403 });
  const hostHeader = request.headers.get('host');
  if (hostHeader !== host) return refuse(`Invalid Host header: ${hostHeader}`);
  const originHeader = request.headers.get('origin');
  if (originHeader && originHeader !== origin) return refuse(`Invalid Origin header: ${originHeader}`);
  return undefined;
}

/**
 * The JSON-RPC messages of a POST (one, or a batch's), read from a clone, at most MCP_BODY_LIMIT bytes; anything
 * unreadable is none, left to the SDK to refuse.
 */
async function messagesOf(request: Request): Promise<unknown[]> {
  if (request.method !== 'POST' || !request.body) return [];
  const body = await readBounded(request.clone(), MCP_BODY_LIMIT);
  if (body === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  return Array.isArray(parsed) ? parsed : [parsed];
}

/** The tool a `tools/call` among the messages names, when the token lacks a scope it needs. */
function scopesNeededByCall(messages: readonly unknown[], toolScopes: ReadonlyMap<string, string[]>, token: VerifiedAccessToken): { tool: string; scopes: string[] } | undefined {
  for (const message of messages) {
    const call = message as { method?: unknown; params?: { name?: unknown } } | null;
    if (call?.method !== 'tools/call' || typeof call.params?.name !== 'string') continue;
    const scopes = toolScopes.get(call.params.name);
    if (scopes && missingPermissions(token.scopes, scopes).length > 0) return { tool: call.params.name, scopes };
  }
  return undefined;
}

/**
 * The confirmation store of an app whose calls a person confirms in Portico: every challenge is kept by Portico (one
 * signed call to save it, one to redeem a token), so any number of the app's instances share it, and only the hash
 * of a token ever leaves the app. Portico answers the page where the person confirms, and whether a token runs.
 */
function porticoConfirmationStore(call: (path: string, payload: unknown, what: string) => Promise<Record<string, unknown>>): ConfirmationStore {
  return {
    confirmsHumans: true,
    async save(challenge) {
      const answer = await call(CONFIRMATIONS_PATH, { action: 'save', nonce_hash: challenge.nonceHash, ...bindingPayload(challenge.binding), risk_level: challenge.riskLevel, description: challenge.description, warning: challenge.warning ?? null, canonical_arguments: challenge.canonicalArguments }, 'the confirmation challenge');
      if (typeof answer.confirmation_url !== 'string') throw new Error('Portico gave no confirmation page for the challenge');
      return { confirmationUrl: answer.confirmation_url };
    },
    async redeem(nonceHash, binding) {
      const answer = await call(CONFIRMATIONS_PATH, { action: 'redeem', nonce_hash: nonceHash, ...bindingPayload(binding) }, 'the confirmation check');
      // Anything but a known answer is no run.
      return answer.redemption === 'run' || answer.redemption === 'waiting' || answer.redemption === 'denied' ? answer.redemption : 'invalid';
    },
    // Portico purges its own expired challenges.
    async purgeExpired() {
      return 0;
    },
  };
}

function bindingPayload(binding: ConfirmationBinding) {
  return { tool: binding.tool, subject: binding.subject, actor: binding.actor, client_id: binding.clientId, arguments_digest: binding.argumentsDigest };
}
