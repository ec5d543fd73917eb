// An app's MCP tools as the kit knows them: each declares its risk level and the scopes it needs. One list drives
// three things, so they cannot disagree: the tools registered on the MCP server (behind the confirmation gate),
// the surface the app declares to Portico, and the unfiltered surface its introspection route reports.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { VerifiedAccessToken } from './protected-resource';
import { annotationsFor, CONFIRMATION_TOKEN_PARAMETER, isAudited, RISK_MODEL_VERSION, type ConfirmationGate, type RiskLevel } from './risk';
import { normalizeSurface, type SurfaceTool } from './surface';

export interface ToolContext {
  /** The verified access token of this call: `subject`, `actor` (the agent, RFC 8693), `clientId`, scopes. */
  token: VerifiedAccessToken;
  /** True when the call ran on a confirmed retry of an approval_required tool. */
  confirmed: boolean;
}

export interface KitTool<Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title?: string;
  description: string;
  riskLevel: RiskLevel;
  /** Scopes a token needs to see and call the tool; `mcp` when not given. */
  requiredScopes?: readonly string[];
  /** For a tool that overwrites or destroys something: the warning the confirmation challenge shows. */
  warning?: string;
  inputSchema?: Shape;
  run(args: z.infer<z.ZodObject<Shape>>, context: ToolContext): Promise<CallToolResult> | CallToolResult;
}

/** Declares a tool with its argument types inferred from its schema. */
export function defineTool<Shape extends z.ZodRawShape>(tool: KitTool<Shape>): KitTool<Shape> {
  return tool;
}

export type ToolOutcome = 'challenge_issued' | 'succeeded' | 'failed';

/** What an app should audit: every call from `caution` up (challenge issued, successful run, failed run). */
export interface ToolEvent {
  tool: string;
  riskLevel: RiskLevel;
  outcome: ToolOutcome;
  subject: string;
  actor?: string;
  clientId: string;
  /** `azp`, for the record only. */
  authorizedParty?: string;
  error?: string;
}

export const requiredScopesOf = (tool: KitTool<never> | KitTool) => [...(tool.requiredScopes ?? ['mcp'])];

/** The surface of a list of tools, at their effective levels: what is declared and what introspection reports. */
export function surfaceOfTools(tools: readonly KitTool<never>[], levels: Readonly<Record<string, RiskLevel>>): SurfaceTool[] {
  return normalizeSurface(tools.map((tool) => ({ name: tool.name, riskLevel: levels[tool.name] ?? tool.riskLevel, requiredScopes: requiredScopesOf(tool) })));
}

/** The experimental capability through which a server announces its risk model in the `initialize` result. */
export const RISK_MODEL_CAPABILITY = 'io.portico/risk-model';
export function riskModelCapability(): Record<string, object> {
  return { [RISK_MODEL_CAPABILITY]: { version: RISK_MODEL_VERSION, levels: ['safe', 'caution', 'review', 'approval_required'], confirmation_parameter: CONFIRMATION_TOKEN_PARAMETER } };
}

/**
 * Registers the tools this token may use (it holds their scopes) on a server made for this request, each behind
 * the confirmation gate, with annotations that agree with its level.
 */
export function registerKitTools(
  server: McpServer,
  tools: readonly KitTool<never>[],
  options: { token: VerifiedAccessToken; gate: ConfirmationGate; levels: Readonly<Record<string, RiskLevel>>; onEvent?: (event: ToolEvent) => void | Promise<void> },
): void {
  const { token } = options;
  for (const tool of tools as readonly KitTool[]) {
    if (!requiredScopesOf(tool).every((scope) => token.scopes.includes(scope))) continue;
    const level = options.levels[tool.name] ?? tool.riskLevel;
    const shape: z.ZodRawShape = {
      ...(tool.inputSchema ?? {}),
      ...(level === 'approval_required'
        ? { [CONFIRMATION_TOKEN_PARAMETER]: z.string().max(128).optional().describe('The token of a confirmation challenge, once a human has approved this exact call.') }
        : {}),
    };
    const emit = async (outcome: ToolOutcome, error?: string) => {
      if (!isAudited(level) || !options.onEvent) return;
      await options.onEvent({ tool: tool.name, riskLevel: level, outcome, subject: token.subject, actor: token.actor, clientId: token.clientId, authorizedParty: token.authorizedParty, ...(error ? { error } : {}) });
    };
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: `${tool.description} Risk level: ${level}.`,
        inputSchema: shape,
        annotations: { ...annotationsFor(level), ...(tool.title ? { title: tool.title } : {}) },
        _meta: { 'io.portico/risk_level': level },
      },
      async (args: Record<string, unknown>): Promise<CallToolResult> => {
        const decision = await options.gate.check({ name: tool.name, description: tool.description, riskLevel: level, warning: tool.warning }, args, { subject: token.subject, actor: token.actor });
        if (!decision.run) {
          await emit('challenge_issued');
          return { content: [{ type: 'text', text: decision.challenge.text }], _meta: { 'io.portico/confirmation': { token: decision.challenge.token, expires_at: decision.challenge.expiresAt.toISOString() } } };
        }
        try {
          const result = await tool.run(decision.args as never, { token, confirmed: decision.confirmed });
          await emit(result.isError ? 'failed' : 'succeeded', result.isError ? 'the tool reported an error' : undefined);
          return result;
        } catch (error) {
          await emit('failed', error instanceof Error ? error.message : String(error));
          return { isError: true, content: [{ type: 'text', text: `"${tool.name}" failed: ${error instanceof Error ? error.message : 'unknown error'}` }] };
        }
      },
    );
  }
}
