// The same tools and the same gate as Portico's MCP server, over REST: `POST /api/tools/<name>` with the arguments
// as a JSON object. A challenge answers `confirmation_required` with its token (428 in human mode, with the page the
// person confirms on; a retry before that answers 428 `waiting_for_confirmation`); errors have OAuth's shape.
import { z } from 'zod';
import { callSchemaOf, runGatedTool } from '../../app-kit/tools';
import { authenticateApiRequest } from './authenticate';
import { readCappedText } from '../http/body';
import { oauthError } from '../http/errors';
import { auditToolEvent } from './audit';
import { DEFAULT_APPROVAL_SURFACES, subjectLocale } from './context';
import { gateFor, MAX_MCP_BODY_BYTES, type PorticoMcpDeps } from './server';
import { findPorticoTool } from './tools';

/** The same tools and the same gate over REST: `POST /api/tools/<name>` with the arguments as a JSON object. */
export async function handleToolOverRest(request: Request, toolName: string, deps: PorticoMcpDeps): Promise<Response> {
  const authentication = await authenticateApiRequest(request, deps);
  if (!authentication.ok) return authentication.response;
  const { caller } = authentication;
  const refuse = oauthError;
  const tool = findPorticoTool(toolName);
  if (!tool) return refuse(404, 'unknown_tool', `there is no tool "${toolName}"`);
  const level = deps.levels[tool.name] ?? tool.riskLevel;
  if (!(tool.requiredScopes ?? ['mcp']).every((scope) => caller.token.scopes.includes(scope))) return refuse(403, 'insufficient_scope', `this tool needs ${(tool.requiredScopes ?? ['mcp']).join(' ')}`);

  const body = await readCappedText(request, MAX_MCP_BODY_BYTES);
  if (body === undefined) return refuse(413, 'invalid_request', `the body is larger than ${MAX_MCP_BODY_BYTES} bytes`);
  let raw: unknown;
  try {
    raw = body.trim() === '' ? {} : JSON.parse(body);
  } catch {
    return refuse(400, 'invalid_request', 'the body is not JSON');
  }
  const parsed = callSchemaOf(tool as never, level).safeParse(raw);
  if (!parsed.success) return refuse(400, 'invalid_arguments', parsed.error.issues.map((issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`).join('; '));

  const locale = subjectLocale(deps.db, caller);
  const run = await runGatedTool(tool, parsed.data, {
    token: caller.token,
    gate: gateFor(deps, locale),
    level,
    extra: { caller, db: deps.db, ip: deps.clientIp, issuer: deps.issuer, approvals: deps.approvals ?? DEFAULT_APPROVAL_SURFACES, locale, notify: deps.notify },
    onEvent: auditToolEvent(deps.db, deps.clientIp, caller),
  });
  const text = run.result.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');
  const noStore = { 'Cache-Control': 'no-store' };
  if (run.kind === 'challenge') {
    // Human mode: 428 Precondition Required (RFC 6585 §3) until the person confirmed; in-band keeps the first answer.
    const human = run.confirmationUrl !== undefined;
    return Response.json(
      { status: 'confirmation_required', tool: tool.name, risk_level: level, challenge: text, confirmation_token: run.token, expires_at: run.expiresAt.toISOString(), ...(human ? { confirmation_url: run.confirmationUrl } : {}) },
      { status: human ? 428 : 200, headers: noStore },
    );
  }
  if (run.kind === 'waiting') return Response.json({ status: 'waiting_for_confirmation', tool: tool.name, message: text }, { status: 428, headers: noStore });
  if (run.kind === 'denied') return Response.json({ status: 'denied', tool: tool.name, error: text }, { status: 403, headers: noStore });
  return Response.json(
    run.result.isError ? { status: 'error', tool: tool.name, error: text } : { status: 'ok', tool: tool.name, result: run.result.structuredContent ?? text },
    { status: run.result.isError ? 422 : 200, headers: noStore },
  );
}
