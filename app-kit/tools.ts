// An app's MCP tools as the kit knows them: each declares its risk level and the scopes it needs. One list drives
// three things, so they cannot disagree: the tools registered on the MCP server (behind the confirmation gate),
// the surface the app declares to Portico, and the unfiltered surface its introspection route reports.
import { CLIENT_CAPABILITIES_META_KEY, fromJsonSchema, inputRequired, type JsonSchemaType, type StandardSchemaWithJSON, inputResponse, isInputRequiredResult, type CallToolResult, type InputRequiredResult, type McpServer, type RequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { VerifiedAccessToken } from './protected-resource';
import { annotationsFor, CONFIRMATION_TOKEN_PARAMETER, isAudited, RISK_MODEL_VERSION, type ConfirmationChallenge, type ConfirmationGate, type ConfirmationMode, type GateDecision, type RiskLevel } from './risk';
import { normalizeSurface, type SurfaceTool } from './surface';
import { missingPermissions } from './decision';

export interface ToolContext {
  /** The verified access token of this call: `subject`, `actor` (the agent, RFC 8693), `clientId`, scopes. */
  token: VerifiedAccessToken;
  /** True when the call ran on a confirmed retry of an approval_required tool. */
  confirmed: boolean;
  /**
   * The MCP request's context (SDK v2), for a tool that runs a multi-round-trip exchange of its own (2026-07-28):
   * its verified `requestState` and `inputResponses`. None over REST.
   */
  mcp?: ServerContext;
}

/** `Extra` is what a server adds to every tool's context (Portico passes the authenticated caller). */
export interface KitTool<Shape extends z.ZodRawShape = z.ZodRawShape, Extra = unknown> {
  name: string;
  title?: string;
  description: string;
  riskLevel: RiskLevel;
  /** Scopes a token needs to see and call the tool; `mcp` when not given. */
  requiredScopes?: readonly string[];
  /** For a tool that overwrites or destroys something: the warning the confirmation challenge shows. */
  warning?: string;
  inputSchema?: Shape;
  /**
   * The input as JSON Schema instead of zod, for a tool whose schema is data (a gateway's upstream tool): the SDK
   * validates calls against it as written. An object schema; the confirmation token is added to its properties.
   */
  inputJsonSchema?: Record<string, unknown>;
  /** Names `inputJsonSchema` for the process's cache of compiled schemas (a digest of it): the same key, the same schema. */
  inputJsonSchemaKey?: string;
  /**
   * Checks, before the confirmation gate, that this caller may use the tool with these arguments (throw to refuse):
   * someone who may not run it gets a refusal, not a challenge.
   */
  authorize?(args: z.infer<z.ZodObject<Shape>>, context: ToolContext & Extra): Promise<void>;
  /** A 2026-07-28 tool may answer input-required (a URL or form input request) and be called again with the answer. */
  run(args: z.infer<z.ZodObject<Shape>>, context: ToolContext & Extra): Promise<CallToolResult | InputRequiredResult> | CallToolResult | InputRequiredResult;
}

/** Declares a tool with its argument types inferred from its schema. */
export function defineTool<Shape extends z.ZodRawShape, Extra = unknown>(tool: KitTool<Shape, Extra>): KitTool<Shape, Extra> {
  return tool;
}

/** A list of tools of different argument shapes. */
export type AnyKitTool<Extra = unknown> = KitTool<never, Extra>;

export type ToolOutcome = 'challenge_issued' | 'succeeded' | 'failed';

/** Where a challenge's machine-readable form travels in a tool result (`_meta`). */
export const CONFIRMATION_META = 'io.portico/confirmation';

/** What an app should audit: every call from `caution` up (challenge issued, successful run, failed run; the person's confirmation or denial is audited by Portico, where it is given). */
export interface ToolEvent {
  tool: string;
  riskLevel: RiskLevel;
  outcome: ToolOutcome;
  subject: string;
  actor?: string;
  clientId: string;
  /** `azp`, for the record only. */
  authorizedParty?: string;
  /** The call's arguments, without the confirmation token. */
  arguments: Record<string, unknown>;
  error?: string;
}

export const requiredScopesOf = (tool: { requiredScopes?: readonly string[] }) => [...(tool.requiredScopes ?? ['mcp'])];

/** The surface of a list of tools, at their effective levels: what is declared and what introspection reports. */
export function surfaceOfTools(tools: readonly { name: string; riskLevel: RiskLevel; requiredScopes?: readonly string[] }[], levels: Readonly<Record<string, RiskLevel>>): SurfaceTool[] {
  return normalizeSurface(tools.map((tool) => ({ name: tool.name, riskLevel: levels[tool.name] ?? tool.riskLevel, requiredScopes: requiredScopesOf(tool) })));
}

/** The experimental capability through which a server announces its risk model in the `initialize` result. */
export const RISK_MODEL_CAPABILITY = 'io.portico/risk-model';
export function riskModelCapability(confirmationMode: ConfirmationMode = 'in_band') {
  return {
    [RISK_MODEL_CAPABILITY]: { version: RISK_MODEL_VERSION, levels: ['safe', 'caution', 'review', 'approval_required'], confirmation_parameter: CONFIRMATION_TOKEN_PARAMETER, confirmation_mode: confirmationMode },
  };
}

/** The input schema a tool is called with: its own, plus the confirmation token for approval_required tools. */
/**
 * The call's input schema as one zod object, built once per tool and level for the process: a server made for each
 * request (Portico's MCP route) then reuses it instead of rebuilding its schemas on every call.
 */
const callSchemas = new WeakMap<object, Partial<Record<RiskLevel, z.ZodObject<z.ZodRawShape>>>>();

export function callSchemaOf(tool: AnyKitTool<never>, level: RiskLevel): z.ZodObject<z.ZodRawShape> {
  let byLevel = callSchemas.get(tool);
  if (!byLevel) callSchemas.set(tool, (byLevel = {}));
  return (byLevel[level] ??= withJsonSchemaOnce(z.object(callShapeOf(tool, level))));
}

/**
 * zod converts a schema to JSON Schema anew each time it is asked (`~standard.jsonSchema`), and the MCP SDK asks once
 * per server (the 2026-07-28 entry reads the called tool's input schema before dispatch, SEP-2243): with a server
 * made per request that was a conversion per call. The schema's conversions are kept for the process instead, frozen,
 * since every server shares them.
 */
function withJsonSchemaOnce<Schema extends z.ZodType>(schema: Schema): Schema {
  const standard = schema['~standard'];
  const convert = standard.jsonSchema;
  const converted = new Map<string, Record<string, unknown>>();
  const once =
    (io: 'input' | 'output') =>
    (options: Parameters<typeof convert.input>[0]): Record<string, unknown> => {
      // Options that hold a function (zod's `override`) are not a key: such a conversion is made each time.
      if (Object.values(options.libraryOptions ?? {}).some((value) => typeof value === 'function')) return convert[io](options);
      const key = `${io}\n${JSON.stringify(options)}`;
      let json = converted.get(key);
      if (!json) converted.set(key, (json = deepFrozen(convert[io](options))));
      return json;
    };
  schema['~standard'] = { ...standard, jsonSchema: { input: once('input'), output: once('output') } };
  return schema;
}

function deepFrozen<Value>(value: Value): Value {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFrozen(item);
  }
  return value;
}

/**
 * A JSON Schema tool's call schema: its own, with the confirmation token beside its properties for approval_required.
 * Compiled once per schema and level for the process (a server made per request would otherwise compile it again on
 * every call): keyed by `inputJsonSchemaKey` when the tool gives one (a digest of the definition), else by the schema.
 */
const jsonCallSchemas = new Map<string, StandardSchemaWithJSON<Record<string, unknown>, Record<string, unknown>>>();
const JSON_CALL_SCHEMA_LIMIT = 2_000;
export function jsonCallSchemaOf(tool: AnyKitTool<never>, level: RiskLevel): StandardSchemaWithJSON<Record<string, unknown>, Record<string, unknown>> | undefined {
  // The validator is the process's: a schema's `$id` would name it there for every later schema with that `$id`
  // (another organization's server), and `$schema` picks a dialect. Neither is kept.
  const schema = withoutIdentifiers((tool as KitTool).inputJsonSchema ?? { type: 'object' }) as Record<string, unknown>;
  const key = `${level}\n${(tool as KitTool).inputJsonSchemaKey ?? JSON.stringify(schema)}`;
  const cached = jsonCallSchemas.get(key);
  if (cached) return cached;
  const properties = (typeof schema.properties === 'object' && schema.properties !== null ? schema.properties : {}) as Record<string, unknown>;
  let compiled: StandardSchemaWithJSON<Record<string, unknown>, Record<string, unknown>>;
  try {
    compiled = fromJsonSchema<Record<string, unknown>>(
    (level === 'approval_required'
      ? {
          ...schema,
          properties: {
            ...properties,
            [CONFIRMATION_TOKEN_PARAMETER]: { type: 'string', maxLength: 128, description: 'The token of a confirmation challenge, once a human has approved this exact call.' },
          },
        }
      : schema) as JsonSchemaType,
    );
  } catch {
    // A schema the validator cannot compile (an unresolvable $ref, say): the tool cannot be offered.
    return undefined;
  }
  if (jsonCallSchemas.size >= JSON_CALL_SCHEMA_LIMIT) jsonCallSchemas.delete(jsonCallSchemas.keys().next().value!);
  jsonCallSchemas.set(key, compiled);
  return compiled;
}

/** A JSON Schema without `$id` and `$schema`, anywhere in it. */
function withoutIdentifiers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIdentifiers);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== '$id' && key !== '$schema').map(([key, item]) => [key, withoutIdentifiers(item)]));
}

export function callShapeOf(tool: AnyKitTool<never>, level: RiskLevel): z.ZodRawShape {
  return {
    ...((tool as KitTool).inputSchema ?? {}),
    ...(level === 'approval_required'
      ? { [CONFIRMATION_TOKEN_PARAMETER]: z.string().max(128).optional().describe('The token of a confirmation challenge, once a human has approved this exact call.') }
      : {}),
  };
}

/** A challenge a person confirms in Portico, offered to them inline (URL-mode elicitation) during the call itself. */
export interface InlineConfirmation {
  /** Offers the confirmation page; true when the person went to it (the call then waits for their answer). */
  offer(challenge: { tool: string; token: string; confirmationUrl: string; expiresAt: Date }): Promise<boolean>;
  /** How long the call waits in all for the person's answer (below the clients' usual 60 s request timeout). */
  waitMs: number;
}

/** What a 2026-07-28 confirmation round carries back to the server (`requestState`, signed by the SDK's codec). */
export interface ConfirmationState {
  tool: string;
  token: string;
  /** The confirmation page and the challenge's expiry, so a retry that still waits can name them again. */
  url: string;
  expiresAt: string;
}

/**
 * A human confirmation offered inside a 2026-07-28 client: the call answers with an input-required result holding a
 * URL input request for Portico's confirmation page (MCP 2026-07-28, multi-round-trip requests), and the client
 * retries the same call with the person's answer and the signed state. The state names the challenge's token, so
 * the retry is the same single-use, argument-bound confirmation as the `_confirmation_token` retry.
 */
export interface ConfirmationInputRequests {
  /** Signs the state the client echoes (HMAC; the server verifies it before any handler runs). */
  codec: RequestStateCodec<ConfirmationState>;
  /** The words of the URL input request, in the person's language. */
  message(tool: string): Promise<string>;
  /** How long a retry waits in all for the person's answer (below the clients' usual 60 s request timeout). */
  waitMs: number;
}

export interface ToolRunOptions<Extra> {
  token: VerifiedAccessToken;
  gate: ConfirmationGate;
  level: RiskLevel;
  extra: Extra;
  onEvent?: (event: ToolEvent) => void | Promise<void>;
  /** Human mode, where the client can show it: the confirmation offered inline; the call runs once it is given. */
  inlineConfirmation?: InlineConfirmation;
  /** Human mode, 2026-07-28, where the client declared URL input requests: the confirmation asked for as one. */
  confirmationInput?: ConfirmationInputRequests;
  /** The retry of a 2026-07-28 confirmation round: the challenge's token and whether the person went to the page. */
  resumed?: { token: string; accepted: boolean; url: string; expiresAt: string };
  /** The MCP request's context, which the state is bound to when it is minted (the codec's `bind`). */
  mcpContext?: ServerContext;
}

export type ToolRun =
  | { kind: 'challenge'; result: CallToolResult; token: string; expiresAt: Date; confirmationUrl?: string }
  /** Human mode: the token is right, the person has not confirmed yet (the token stays valid). */
  | { kind: 'waiting'; result: CallToolResult }
  /** Human mode: the person denied the call (the token is spent). */
  | { kind: 'denied'; result: CallToolResult }
  /** Human mode, 2026-07-28: the confirmation asked for as a URL input request; the client retries with the answer. */
  | { kind: 'input_required'; result: InputRequiredResult }
  | { kind: 'ran'; result: CallToolResult };

/**
 * The code of an error from the system below a tool, directly or as a cause: Node's (ECONNREFUSED), a driver's
 * (CONNECTION_CLOSED), a SQLSTATE (57P01, 23505) — codes in capitals and digits. A tool's own refusals carry lower-case
 * codes (`not_found`, `queue_full`) and keep their words.
 */
function systemErrorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 4; current = (current as { cause?: unknown }).cause, depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z0-9_]+$/.test(code)) return code;
  }
  return undefined;
}

/** Worth a retry: the database could not be reached or was busy (connection classes, shutdown, serialization). */
const TEMPORARY = /^(?:E(?:CONN|HOST|NET|PIPE|TIMEDOUT|AI_AGAIN)\w*|CONNECTION_\w+|CONNECT_TIMEOUT|08\w{3}|57P0[1-3]|53300|40001|40P01)$/;

/**
 * What a caller and the audit trail are told of a failed tool. A system error's message names hosts, ports, SQL and
 * its parameters: none of that leaves Portico nor goes into the immutable audit chain, only its code.
 */
function failureOf(error: unknown): { shown: string; audited: string } {
  const message = error instanceof Error ? error.message : String(error);
  const code = systemErrorCode(error);
  if (!code) return { shown: message, audited: message };
  return { shown: TEMPORARY.test(code) ? 'a temporary error; try again' : 'an internal error', audited: `system error ${code}` };
}

/**
 * One call of one tool with already validated arguments: the confirmation gate, then the tool, with the events to
 * audit. MCP and Portico's REST route both go through here, so they give the same results.
 */
export async function runGatedTool<Extra>(tool: AnyKitTool<Extra>, args: Record<string, unknown>, options: ToolRunOptions<Extra> & { confirmationInput?: undefined }): Promise<Exclude<ToolRun, { kind: 'input_required' }>>;
export async function runGatedTool<Extra>(tool: AnyKitTool<Extra>, args: Record<string, unknown>, options: ToolRunOptions<Extra>): Promise<ToolRun>;
export async function runGatedTool<Extra>(tool: AnyKitTool<Extra>, args: Record<string, unknown>, options: ToolRunOptions<Extra>): Promise<ToolRun> {
  const { token, level } = options;
  // A 2026-07-28 retry carries the challenge's token in its signed state, not in the arguments.
  if (options.resumed && level === 'approval_required' && args[CONFIRMATION_TOKEN_PARAMETER] === undefined) args = { ...args, [CONFIRMATION_TOKEN_PARAMETER]: options.resumed.token };
  const { [CONFIRMATION_TOKEN_PARAMETER]: _token, ...callArguments } = args;
  const emit = async (outcome: ToolOutcome, error?: string) => {
    if (!isAudited(level) || !options.onEvent) return;
    await options.onEvent({
      tool: tool.name,
      riskLevel: level,
      outcome,
      subject: token.subject,
      actor: token.actor,
      clientId: token.clientId,
      authorizedParty: token.authorizedParty,
      arguments: callArguments,
      ...(error ? { error } : {}),
    });
  };
  const kitTool = tool as KitTool<z.ZodRawShape, Extra>;
  if (kitTool.authorize) {
    try {
      await kitTool.authorize(callArguments as never, { ...options.extra, token, confirmed: false, mcp: options.mcpContext });
    } catch (error) {
      return { kind: 'ran', result: { isError: true, content: [{ type: 'text', text: `"${tool.name}" refused: ${error instanceof Error ? error.message : String(error)}` }] } };
    }
  }
  const caller = { subject: token.subject, actor: token.actor, clientId: token.clientId };
  const gated = { name: tool.name, description: tool.description, riskLevel: level, warning: tool.warning };
  let decision = await options.gate.check(gated, args, caller);
  const started = Date.now();
  /** The person was sent to the confirmation page: wait (a while) for their answer there, then decide again. */
  const awaitAnswer = async (retry: Record<string, unknown>, waitMs: number) => {
    for (;;) {
      decision = await options.gate.check(gated, retry, caller);
      // A client that went away (it cancelled, or its connection closed) is not waited for.
      if (decision.run || decision.outcome !== 'waiting' || Date.now() - started >= waitMs || options.mcpContext?.mcpReq.signal.aborted) return;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  };
  if (!decision.run && decision.outcome === 'waiting' && options.resumed?.accepted && options.confirmationInput) await awaitAnswer(args, options.confirmationInput.waitMs);
  if (!decision.run && decision.outcome === 'challenge' && decision.challenge.confirmationUrl && options.confirmationInput && !options.resumed) {
    await emit('challenge_issued');
    const { challenge } = decision;
    const requestState = await options.confirmationInput.codec.mint(
      { tool: tool.name, token: challenge.token, url: challenge.confirmationUrl!, expiresAt: challenge.expiresAt.toISOString() },
      options.mcpContext,
    );
    return {
      kind: 'input_required',
      result: inputRequired({
        inputRequests: { confirmation: inputRequired.elicitUrl({ message: await options.confirmationInput.message(tool.name), url: challenge.confirmationUrl! }) },
        requestState,
      }),
    };
  }
  if (!decision.run && decision.outcome === 'challenge' && decision.challenge.confirmationUrl && options.inlineConfirmation) {
    await emit('challenge_issued');
    const { challenge } = decision;
    // The person is offered Portico's confirmation page inside the client; the call waits for their answer there
    // (step-up happens on Portico's page, never in the client), then runs once — or says why not.
    if (await options.inlineConfirmation.offer({ tool: tool.name, token: challenge.token, confirmationUrl: challenge.confirmationUrl!, expiresAt: challenge.expiresAt })) {
      await awaitAnswer({ ...callArguments, [CONFIRMATION_TOKEN_PARAMETER]: challenge.token }, options.inlineConfirmation.waitMs);
    }
    if (!decision.run) return challengeOrWaiting(tool.name, decision, decision.outcome === 'challenge' ? decision.challenge : challenge);
  }
  if (!decision.run) {
    if (decision.outcome === 'challenge') await emit('challenge_issued');
    // A 2026-07-28 retry that still waits names the page and the token again, as the first answer did.
    const resumed = options.resumed && { token: options.resumed.token, tool: tool.name, confirmationUrl: options.resumed.url, expiresAt: new Date(options.resumed.expiresAt), text: '' };
    return challengeOrWaiting(tool.name, decision, decision.outcome === 'challenge' ? decision.challenge : resumed);
  }
  let result: CallToolResult;
  try {
    const answer = await kitTool.run(decision.args as never, { ...options.extra, token, confirmed: decision.confirmed, mcp: options.mcpContext });
    // The tool asks the client for input first (2026-07-28); it is audited when the retry completes.
    if (isInputRequiredResult(answer)) return { kind: 'input_required', result: answer };
    result = answer;
  } catch (error) {
    // A tool's own refusal reads as it was written; a system error is named by its code only (failureOf).
    const { shown, audited } = failureOf(error);
    // The caller reads "an internal error"; the operator's log says which (the code only, as the audit trail).
    if (shown !== audited) console.error(`${tool.name} failed: ${audited}`);
    await emit('failed', audited);
    return { kind: 'ran', result: { isError: true, content: [{ type: 'text', text: `"${tool.name}" failed: ${shown}` }] } };
  }
  // Outside the try: the tool has run, so its result (a secret shown once, say) is returned even if auditing fails.
  await emit(result.isError ? 'failed' : 'succeeded', result.isError ? firstText(result) : undefined).catch((error: unknown) => {
    console.error(`audit of ${tool.name} failed after it ran: ${error instanceof Error ? error.message : String(error)}`);
  });
  return { kind: 'ran', result };
}

/** What a call that did not run answers: the challenge, "waiting for confirmation" (with the token kept), or the denial. */
function challengeOrWaiting(tool: string, decision: Exclude<GateDecision, { run: true }>, challenge: ConfirmationChallenge | undefined): ToolRun {
  if (decision.outcome === 'waiting') {
    return {
      kind: 'waiting',
      result: {
        content: [{ type: 'text', text: challenge ? `${decision.text}\nThe confirmation page: ${challenge.confirmationUrl}\nThe token: "${challenge.token}".` : decision.text }],
        _meta: { [CONFIRMATION_META]: { status: 'waiting', tool, ...(challenge ? { token: challenge.token, confirmation_url: challenge.confirmationUrl, expires_at: challenge.expiresAt.toISOString() } : {}) } },
      },
    };
  }
  if (decision.outcome === 'denied') return { kind: 'denied', result: { isError: true, content: [{ type: 'text', text: decision.text }], _meta: { [CONFIRMATION_META]: { status: 'denied', tool } } } };
  const issued = decision.challenge;
  return {
    kind: 'challenge',
    token: issued.token,
    expiresAt: issued.expiresAt,
    ...(issued.confirmationUrl ? { confirmationUrl: issued.confirmationUrl } : {}),
    result: {
      content: [{ type: 'text', text: issued.text }],
      _meta: {
        [CONFIRMATION_META]: {
          status: 'confirmation_required',
          tool,
          token: issued.token,
          expires_at: issued.expiresAt.toISOString(),
          ...(issued.confirmationUrl ? { confirmation_url: issued.confirmationUrl } : {}),
        },
      },
    },
  };
}

function firstText(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text.slice(0, 500) : 'the tool reported an error';
}

/**
 * What a 2026-07-28 request says about a confirmation round: whether its client declared URL input requests, and
 * the answer it carries to an earlier one of this tool (the state was verified by the server before the handler).
 * A 2025-11-25 request has no envelope and carries no state: neither applies.
 */
function confirmationRound(toolName: string, context: ServerContext | undefined): { urlInputRequests: boolean; resumed?: ToolRunOptions<unknown>['resumed'] } {
  const capabilities = context?.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as never] as { elicitation?: { url?: unknown } } | undefined;
  const urlInputRequests = typeof capabilities?.elicitation?.url === 'object' && capabilities.elicitation.url !== null;
  const state = context?.mcpReq.requestState<ConfirmationState>();
  if (!state || state.tool !== toolName || typeof state.token !== 'string') return { urlInputRequests };
  const answer = inputResponse(context?.mcpReq.inputResponses, 'confirmation');
  return { urlInputRequests, resumed: { token: state.token, url: state.url, expiresAt: state.expiresAt, accepted: answer.kind === 'elicit' && answer.action === 'accept' } };
}

/**
 * Registers the tools this token may use (it holds their scopes) on a server made for this request, each behind
 * the confirmation gate, with annotations that agree with its level.
 */
export function registerKitTools<Extra>(
  server: McpServer,
  tools: readonly AnyKitTool<Extra>[],
  options: {
    token: VerifiedAccessToken;
    gate: ConfirmationGate;
    levels: Readonly<Record<string, RiskLevel>>;
    extra: Extra;
    onEvent?: (event: ToolEvent) => void | Promise<void>;
    /** More `_meta` for a tool's definition on this connection (an MCP Apps view it may show, say). */
    metaOf?: (toolName: string) => Record<string, unknown> | undefined;
    inlineConfirmation?: InlineConfirmation;
    /**
     * 2026-07-28 requests from a client that declared URL input requests (`elicitation.url` in the request's
     * client capabilities): human confirmations asked for as one. The server must verify `requestState` with the
     * same codec (`requestState: { verify }` in its options).
     */
    confirmationInput?: ConfirmationInputRequests;
  },
): void {
  const { token } = options;
  let registered = 0;
  for (const tool of tools) {
    if (missingPermissions(token.scopes, requiredScopesOf(tool)).length > 0) continue;
    const level = options.levels[tool.name] ?? tool.riskLevel;
    const inputSchema = (tool as KitTool).inputJsonSchema ? jsonCallSchemaOf(tool as AnyKitTool<never>, level) : callSchemaOf(tool as AnyKitTool<never>, level);
    if (!inputSchema) continue;
    registered += 1;
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: `${tool.description} Risk level: ${level}.`,
        inputSchema,
        annotations: { ...annotationsFor(level), ...(tool.title ? { title: tool.title } : {}) },
        _meta: { ...options.metaOf?.(tool.name), 'io.portico/risk_level': level },
      },
      async (args: Record<string, unknown>, context?: ServerContext): Promise<CallToolResult | InputRequiredResult> => {
        const round = confirmationRound(tool.name, context);
        const confirmationInput = options.confirmationInput && round.urlInputRequests ? options.confirmationInput : undefined;
        return (await runGatedTool(tool, args, { ...options, level, confirmationInput, resumed: round.resumed, mcpContext: context })).result;
      },
    );
  }
  if (registered === 0) {
    // The SDK sets up tools/list with the first tool registered; before that it answers "Method not found". A token
    // that may use none of the tools (an own-mode agent with no grant yet) gets what MCP says: an empty list. A
    // placeholder registered and removed at once leaves the handlers in place and lists nothing.
    server.registerTool('portico.none', { description: 'never listed' }, () => ({ content: [] })).remove();
  }
}
