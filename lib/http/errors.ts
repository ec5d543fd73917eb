// One error vocabulary for every machine-facing answer Portico writes itself (oidc-provider answers its own
// endpoints). Three shapes, each the protocol's own:
// - OAuth / REST / product JSON: {"error", "error_description"} (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 6750 §3.1),
//   never cached;
// - JSON-RPC 2.0 errors for the MCP endpoint (`id: null` when the request could not be read);
// - SCIM 2.0 errors for provisioning (RFC 7644 §3.12: the Error schema, `status` as a string, `scimType`).
// A refusal (lib/refusals/refusal.ts) carries its status and code from its domain's table (`lib/<domain>/refusal-codes.ts`),
// so that one refusal answers the same status whichever door reports it; `oauthRefusalAnswer` is the OAuth-shaped one.
import { Refusal } from '../refusals/refusal';
import { readCappedText } from './body';

export const NO_STORE = { 'Cache-Control': 'no-store' } as const;

/** {"error", "error_description"} with a status: OAuth's shape, which Portico's REST and product endpoints share. */
export function oauthError(status: number, error: string, description: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error, error_description: description }, { status, headers: { ...NO_STORE, ...headers } });
}

/**
 * The OAuth-shaped doors' one answer to a refusal (REST, the central, product endpoints): its status, its code as
 * `error`, its words as `error_description` — English unless `words` says them otherwise (the central: in the
 * operator's language). Anything else: undefined, for the caller to throw on.
 */
export function oauthRefusalAnswer(error: unknown, words: (refusal: Refusal) => string = (refusal) => refusal.message): Response | undefined {
  if (!(error instanceof Refusal)) return undefined;
  return oauthError(error.status, error.code, words(error));
}

/** A JSON-RPC 2.0 error answered before (or instead of) any MCP processing. */
export function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status, headers: NO_STORE });
}

/** RFC 7644 §3.12: a SCIM error, as application/scim+json. */
export function scimError(status: number, detail: string, scimType?: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: String(status), ...(scimType ? { scimType } : {}), detail }), {
    status,
    headers: { 'Content-Type': 'application/scim+json', ...NO_STORE, ...headers },
  });
}

export type JsonObjectBody =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; problem: 'too_large' | 'not_json' | 'not_object'; status: 413 | 400; description: string };

/** A JSON object from text: a parse error, a non-object (null, an array, a number) each say what is wrong. */
export function parseJsonObject(text: string): JsonObjectBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'not_json', status: 400, description: 'the body is not valid JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, problem: 'not_object', status: 400, description: 'the body must be a JSON object' };
  return { ok: true, value: value as Record<string, unknown> };
}

/** The body as a JSON object, read with a size cap (declared or actual): nothing larger is ever buffered. */
export async function readJsonObject(request: Request, limit: number): Promise<JsonObjectBody> {
  const text = await readCappedText(request, limit);
  if (text === undefined) return { ok: false, problem: 'too_large', status: 413, description: `the body is larger than ${limit} bytes` };
  return parseJsonObject(text);
}
