// The app's surface (its tools, their scopes and risk levels) and the signed calls that carry it between the app
// and Portico: the app declares its surface to Portico, and Portico asks the app's introspection route for the
// real, unfiltered list to compare. Both sides hold one secret per app (PORTICO_SURFACE_SECRET); only a proof of
// possession travels: an HMAC-SHA256 over the method, the path, a timestamp, a nonce and the body's digest. A
// proof is valid for 5 minutes and its nonce only once. The answer is signed too, bound to the request's nonce, so
// Portico knows the surface it compares came from the app.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isRiskLevel, type RiskLevel } from './risk';

/** The app's introspection route. */
export const SURFACE_PATH = '/api/mcp/surface';
/** Portico's declaration endpoint, relative to the issuer. */
export const DECLARATION_PATH = '/api/apps/surface';
/** Portico's grant check (the approval broker), relative to the issuer; signed the same way. */
export const GRANT_CHECK_PATH = '/api/apps/grants/check';
/** Portico's confirmation store for apps whose approval_required calls a person confirms in Portico; signed the same way. */
export const CONFIRMATIONS_PATH = '/api/apps/confirmations';
export const SIGNATURE_HEADER = 'portico-signature';
export const RESPONSE_SIGNATURE_HEADER = 'portico-response-signature';
export const SIGNATURE_MAX_AGE_SECONDS = 300;
const SIGNATURE_VERSION = 'portico-surface-v1';

export interface SurfaceTool {
  name: string;
  riskLevel: RiskLevel;
  requiredScopes: string[];
}

export interface SurfaceDocument {
  kit_contract_version: number;
  risk_model_version: number;
  resource: string;
  tools: SurfaceTool[];
}

/** Sorted by name, scopes sorted: two equal surfaces serialize identically. */
export function normalizeSurface(tools: readonly SurfaceTool[]): SurfaceTool[] {
  return [...tools]
    .map((tool) => ({ name: tool.name, riskLevel: tool.riskLevel, requiredScopes: [...new Set(tool.requiredScopes)].sort() }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Reads a surface document from untrusted JSON, or says what is wrong with it. */
export function parseSurfaceDocument(value: unknown): { ok: true; surface: SurfaceDocument } | { ok: false; error: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: 'the surface must be a JSON object' };
  const document = value as Record<string, unknown>;
  if (!Number.isInteger(document.kit_contract_version)) return { ok: false, error: 'kit_contract_version must be an integer' };
  if (!Number.isInteger(document.risk_model_version)) return { ok: false, error: 'risk_model_version must be an integer' };
  if (typeof document.resource !== 'string') return { ok: false, error: 'resource must be a string' };
  if (!Array.isArray(document.tools) || document.tools.length > 500) return { ok: false, error: 'tools must be an array of at most 500 tools' };
  const names = new Set<string>();
  const tools: SurfaceTool[] = [];
  for (const [index, entry] of document.tools.entries()) {
    const tool = entry as Record<string, unknown> | null;
    if (typeof tool?.name !== 'string' || !/^[A-Za-z0-9_.-]{1,128}$/.test(tool.name)) return { ok: false, error: `tools[${index}].name must be 1-128 letters, digits, _ . or -` };
    if (names.has(tool.name)) return { ok: false, error: `the tool "${tool.name}" is listed twice` };
    names.add(tool.name);
    if (!isRiskLevel(tool.riskLevel)) return { ok: false, error: `tools[${index}].riskLevel must be safe, caution, review or approval_required` };
    const scopes = tool.requiredScopes;
    if (!Array.isArray(scopes) || scopes.length > 20 || !scopes.every((scope) => typeof scope === 'string' && /^[\x21\x23-\x5B\x5D-\x7E]{1,64}$/.test(scope))) {
      return { ok: false, error: `tools[${index}].requiredScopes must be a list of scope tokens (RFC 6749 §3.3)` };
    }
    tools.push({ name: tool.name, riskLevel: tool.riskLevel, requiredScopes: scopes as string[] });
  }
  return { ok: true, surface: { kit_contract_version: document.kit_contract_version as number, risk_model_version: document.risk_model_version as number, resource: document.resource, tools: normalizeSurface(tools) } };
}

export interface SurfaceDifference {
  /** Exposed by the app, absent from its declaration: what verification exists to find. */
  undeclared: SurfaceTool[];
  /** Declared, but not exposed any more. */
  missing: SurfaceTool[];
  /** Exposed under the same name with another risk level or other scopes. */
  changed: { name: string; declared: SurfaceTool; exposed: SurfaceTool }[];
}

export function compareSurfaces(declared: readonly SurfaceTool[], exposed: readonly SurfaceTool[]): SurfaceDifference {
  const declaredByName = new Map(normalizeSurface(declared).map((tool) => [tool.name, tool]));
  const exposedByName = new Map(normalizeSurface(exposed).map((tool) => [tool.name, tool]));
  const difference: SurfaceDifference = { undeclared: [], missing: [], changed: [] };
  for (const [name, tool] of exposedByName) {
    const before = declaredByName.get(name);
    if (!before) difference.undeclared.push(tool);
    else if (before.riskLevel !== tool.riskLevel || before.requiredScopes.join(' ') !== tool.requiredScopes.join(' ')) difference.changed.push({ name, declared: before, exposed: tool });
  }
  for (const [name, tool] of declaredByName) if (!exposedByName.has(name)) difference.missing.push(tool);
  return difference;
}

export function isSameSurface(difference: SurfaceDifference): boolean {
  return difference.undeclared.length === 0 && difference.missing.length === 0 && difference.changed.length === 0;
}

// --- Signatures -------------------------------------------------------------------------------------------------

const bodyDigest = (body: string) => createHash('sha256').update(body).digest('base64url');

function mac(secret: string, parts: readonly string[]): string {
  return createHmac('sha256', secret).update([SIGNATURE_VERSION, ...parts].join('\n')).digest('base64url');
}

function sameMac(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface SignedRequestParts {
  method: string;
  /** The path and query the request is sent to, e.g. `/api/mcp/surface`. */
  path: string;
  body: string;
}

/**
 * The `Portico-Signature` header for a request: `k=<key id>, t=<unix seconds>, n=<nonce>, s=<HMAC>`. The key id
 * names whose secret signs (an app's client id when the app calls Portico) and is covered by the HMAC.
 */
export function signRequest(secret: string, request: SignedRequestParts, options: { keyId?: string; now?: Date } = {}): { header: string; nonce: string } {
  const timestamp = String(Math.floor((options.now ?? new Date()).getTime() / 1000));
  const nonce = randomBytes(18).toString('base64url');
  const keyId = options.keyId ?? '';
  const signature = mac(secret, ['request', keyId, request.method.toUpperCase(), request.path, timestamp, nonce, bodyDigest(request.body)]);
  return { header: [...(keyId ? [`k=${keyId}`] : []), `t=${timestamp}`, `n=${nonce}`, `s=${signature}`].join(', '), nonce };
}

/** The fields of a signature header, or undefined when it is not one. */
export function parseSignatureHeader(header: string | null): { keyId: string; timestamp: number; nonce: string; signature: string } | undefined {
  if (!header || header.length > 512) return undefined;
  const fields = new Map<string, string>();
  for (const part of header.split(',')) {
    const match = /^\s*([ktns])=([A-Za-z0-9_.:-]{1,200})\s*$/.exec(part);
    if (!match || fields.has(match[1]!)) return undefined;
    fields.set(match[1]!, match[2]!);
  }
  const timestamp = Number(fields.get('t'));
  const nonce = fields.get('n');
  const signature = fields.get('s');
  if (!Number.isSafeInteger(timestamp) || !nonce || nonce.length < 16 || !signature) return undefined;
  return { keyId: fields.get('k') ?? '', timestamp, nonce, signature };
}

/** Remembers nonces until their proof expires. `remember` answers false when the nonce was seen already. */
export interface ReplayGuard {
  /** Records the nonce until it expires; false when it was recorded already (a replay). */
  remember(nonce: string, expiresAt: Date): Promise<boolean>;
  /** Drops a nonce whose use did not complete, so that the same message can be accepted when it is sent again. */
  forget?(nonce: string): Promise<void>;
}

/** One process's nonces, bounded by their 5-minute life. */
export function memoryReplayGuard(clock: () => Date = () => new Date()): ReplayGuard {
  const seen = new Map<string, number>();
  return {
    async remember(nonce, expiresAt) {
      // The receiver's own clock: what it calls expired is what this forgets.
      const now = clock().getTime();
      for (const [key, until] of seen) if (until < now) seen.delete(key);
      if (seen.has(nonce)) return false;
      seen.set(nonce, expiresAt.getTime());
      return true;
    },
    async forget(nonce) {
      seen.delete(nonce);
    },
  };
}

export type SignatureCheck = { ok: true; nonce: string; keyId: string } | { ok: false; reason: 'missing' | 'malformed' | 'expired' | 'bad_signature' | 'replayed' };

export const SIGNATURE_REFUSALS: Record<Exclude<SignatureCheck, { ok: true }>['reason'], string> = {
  missing: 'the request carries no Portico-Signature',
  malformed: 'the Portico-Signature header is malformed',
  expired: 'the signature is more than 5 minutes away from now',
  bad_signature: 'the signature does not match (another secret, or the request was changed)',
  replayed: 'this signature was used already',
};

/**
 * Checks a signed request: well-formed, within 5 minutes of now (either way), the HMAC of this very request
 * under `secret`, and a nonce never seen. The nonce is remembered only once everything else holds, so a forged
 * request cannot burn a genuine nonce.
 */
export async function verifySignedRequest(
  secretFor: string | ((keyId: string) => Promise<string | undefined>),
  request: SignedRequestParts & { header: string | null },
  replay: ReplayGuard,
  now = new Date(),
): Promise<SignatureCheck> {
  if (!request.header) return { ok: false, reason: 'missing' };
  const parsed = parseSignatureHeader(request.header);
  if (!parsed) return { ok: false, reason: 'malformed' };
  if (Math.abs(now.getTime() / 1000 - parsed.timestamp) > SIGNATURE_MAX_AGE_SECONDS) return { ok: false, reason: 'expired' };
  const secret = typeof secretFor === 'string' ? secretFor : await secretFor(parsed.keyId);
  if (!secret) return { ok: false, reason: 'bad_signature' };
  const expected = mac(secret, ['request', parsed.keyId, request.method.toUpperCase(), request.path, String(parsed.timestamp), parsed.nonce, bodyDigest(request.body)]);
  if (!sameMac(expected, parsed.signature)) return { ok: false, reason: 'bad_signature' };
  const expiresAt = new Date((parsed.timestamp + SIGNATURE_MAX_AGE_SECONDS) * 1000);
  if (!(await replay.remember(parsed.nonce, expiresAt))) return { ok: false, reason: 'replayed' };
  return { ok: true, nonce: parsed.nonce, keyId: parsed.keyId };
}

/** The answer's signature: bound to the request's nonce, so an old answer cannot be played back. */
export function signResponse(secret: string, requestNonce: string, status: number, body: string): string {
  return `s=${mac(secret, ['response', requestNonce, String(status), bodyDigest(body)])}`;
}

export function verifyResponseSignature(secret: string, requestNonce: string, status: number, body: string, header: string | null): boolean {
  const match = /^s=([A-Za-z0-9_-]{1,100})$/.exec(header ?? '');
  return Boolean(match) && sameMac(mac(secret, ['response', requestNonce, String(status), bodyDigest(body)]), match![1]!);
}
