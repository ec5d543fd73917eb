// Rich Authorization Requests (RFC 9396) as Portico has them: the exact action a person is asked to approve through
// CIBA (lib/oidc/ciba.ts). Two types, both closed (an unknown field is refused, so nothing the person did not see
// can ride along in an approved token):
//
// - `portico_tool_call`: one call of one of the app's tools — `tool`, `risk_level`, `arguments` (plain JSON, shown
//   to the person as it is) and `arguments_digest`, the SHA-256 of the arguments in RFC 8785 form (the digest the
//   app kit's confirmation gate binds; computed here, and when the client sends one it must match).
// - `portico_action`: an action described in words — `description`, and optionally `target` and `amount`
//   (`{ value, currency }`).
//
// Both carry `locations` (RFC 9396 §2.2): the resource they are for, which must be the request's `resource` — the
// app the token will be bound to. oidc-provider calls `validate` for every detail of a request
// (features.richAuthorizationRequests.types) and keeps the details on the request; the token carries what the
// person approved (`authorizationDetailsForAccessToken`).
import canonicalize from 'canonicalize';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { argumentsDigest, isRiskLevel, RISK_LEVELS, riskRank, type RiskLevel } from '../../app-kit/risk';

export const PORTICO_TOOL_CALL = 'portico_tool_call';
export const PORTICO_ACTION = 'portico_action';
export const AUTHORIZATION_DETAILS_TYPES = [PORTICO_TOOL_CALL, PORTICO_ACTION] as const;

/** At most this many details in one request, and this many bytes of a tool call's arguments. */
export const MAX_DETAILS = 5;
export const MAX_ARGUMENTS_BYTES = 8 * 1024;

export interface ToolCallDetail {
  type: typeof PORTICO_TOOL_CALL;
  locations: [string];
  tool: string;
  risk_level: RiskLevel;
  arguments: Record<string, unknown>;
  arguments_digest: string;
}

export interface ActionDetail {
  type: typeof PORTICO_ACTION;
  locations: [string];
  description: string;
  target?: string;
  amount?: { value: string; currency: string };
}

export type AuthorizationDetail = ToolCallDetail | ActionDetail;

const invalid = (description: string) => new errors.InvalidAuthorizationDetails(description);

/**
 * Printable text only (no control or format characters): a control character or a bidirectional override could make
 * the page show something else than what is approved. The binding message follows the same rule (lib/oidc/ciba.ts).
 */
export const PRINTABLE = /^[^\p{Cc}\p{Cf}\u2028\u2029]+$/u;

function text(detail: Record<string, unknown>, field: string, max: number, required: boolean): string | undefined {
  const value = detail[field];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value.trim() === '' || value.length > max || !PRINTABLE.test(value)) {
    throw invalid(`${detail.type} ${field} must be printable text of 1 to ${max} characters`);
  }
  return value.trim();
}

function onlyFields(detail: Record<string, unknown>, allowed: readonly string[]): void {
  for (const field of Object.keys(detail)) if (!allowed.includes(field)) throw invalid(`${detail.type} has no field "${field}"`);
}

/** The `locations` of a detail: absent (then the request's resource) or exactly that resource. */
function locationsOf(detail: Record<string, unknown>, resource: string): [string] {
  const value = detail.locations;
  if (value === undefined) return [resource];
  if (!Array.isArray(value) || value.length !== 1 || value[0] !== resource) throw invalid(`${detail.type} locations must be [the request's resource]`);
  return [resource];
}

/**
 * A detail checked and normalized: the form the person sees, the token carries and the app verifies. Throws
 * invalid_authorization_details (RFC 9396 §5) for anything else.
 */
export function normalizeDetail(value: unknown, resource: string): AuthorizationDetail {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('each authorization detail must be an object');
  const detail = value as Record<string, unknown>;
  if (detail.type === PORTICO_TOOL_CALL) {
    onlyFields(detail, ['type', 'locations', 'tool', 'risk_level', 'arguments', 'arguments_digest']);
    const tool = detail.tool;
    if (typeof tool !== 'string' || !/^[A-Za-z0-9_.-]{1,128}$/.test(tool)) throw invalid('portico_tool_call tool must be 1-128 letters, digits, _ . or -');
    const risk = detail.risk_level ?? 'approval_required';
    if (!isRiskLevel(risk)) throw invalid(`portico_tool_call risk_level must be one of ${RISK_LEVELS.join(', ')}`);
    const args = detail.arguments ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args)) throw invalid('portico_tool_call arguments must be a JSON object');
    let digest: string;
    try {
      digest = argumentsDigest(args as Record<string, unknown>);
    } catch {
      throw invalid('portico_tool_call arguments must be plain JSON');
    }
    if ((canonicalize(args) ?? '').length > MAX_ARGUMENTS_BYTES) throw invalid(`portico_tool_call arguments must be at most ${MAX_ARGUMENTS_BYTES} bytes`);
    if (detail.arguments_digest !== undefined && detail.arguments_digest !== digest) throw invalid('portico_tool_call arguments_digest is not the RFC 8785 SHA-256 digest of arguments');
    return { type: PORTICO_TOOL_CALL, locations: locationsOf(detail, resource), tool, risk_level: risk, arguments: args as Record<string, unknown>, arguments_digest: digest };
  }
  if (detail.type === PORTICO_ACTION) {
    onlyFields(detail, ['type', 'locations', 'description', 'target', 'amount']);
    const description = text(detail, 'description', 200, true)!;
    const target = text(detail, 'target', 200, false);
    let amount: ActionDetail['amount'];
    if (detail.amount !== undefined) {
      const given = detail.amount as Record<string, unknown> | null;
      const valueText = typeof given?.value === 'number' && Number.isFinite(given.value) ? String(given.value) : given?.value;
      if (typeof given !== 'object' || given === null || Object.keys(given).some((key) => key !== 'value' && key !== 'currency') || typeof valueText !== 'string' || !/^-?\d{1,15}(\.\d{1,6})?$/.test(valueText) || typeof given.currency !== 'string' || !/^[A-Z]{3}$/.test(given.currency)) {
        throw invalid('portico_action amount must be { "value": a decimal number, "currency": an ISO 4217 code }');
      }
      amount = { value: valueText, currency: given.currency };
    }
    return { type: PORTICO_ACTION, locations: locationsOf(detail, resource), description, ...(target ? { target } : {}), ...(amount ? { amount } : {}) };
  }
  throw invalid(`unsupported authorization details type: supported are ${AUTHORIZATION_DETAILS_TYPES.join(', ')}`);
}

/** The single resource of a request, which authorization details must name (RFC 8707 + RFC 9396 §2.2). */
function resourceOfRequest(ctx: KoaContextWithOIDC): string {
  const resource = ctx.oidc.params?.resource;
  if (typeof resource !== 'string') throw invalid('authorization_details need exactly one resource: the app the action is for');
  return resource;
}

/** Every detail of a request, normalized (the request's whole `authorization_details` parameter). */
export function detailsOfRequest(ctx: KoaContextWithOIDC): AuthorizationDetail[] {
  const raw = ctx.oidc.params?.authorization_details;
  if (typeof raw !== 'string') return [];
  const parsed = JSON.parse(raw) as unknown[];
  if (parsed.length > MAX_DETAILS) throw invalid(`at most ${MAX_DETAILS} authorization details in one request`);
  const resource = resourceOfRequest(ctx);
  return parsed.map((detail) => normalizeDetail(detail, resource));
}

/** The highest risk among the details (an action described in words counts as approval_required). */
export function riskOfDetails(details: readonly AuthorizationDetail[]): RiskLevel {
  let highest: RiskLevel = 'safe';
  for (const detail of details) {
    const risk = detail.type === PORTICO_TOOL_CALL ? detail.risk_level : 'approval_required';
    if (riskRank(risk) > riskRank(highest)) highest = risk;
  }
  return highest;
}

/** A short name for what is asked, for lists and mail subjects: the tools' names, or "action". */
export function summaryOfDetails(details: readonly AuthorizationDetail[]): string {
  const names = details.map((detail) => (detail.type === PORTICO_TOOL_CALL ? detail.tool : 'action'));
  return [...new Set(names)].join(', ').slice(0, 128) || 'action';
}

/**
 * oidc-provider's features.richAuthorizationRequests: the two types, accepted only at the backchannel
 * authentication endpoint (the code flow's consent screen has no place to show them), checked whole at the request;
 * the access token carries the details the person approved, as stored on the request when they answered.
 */
export function richAuthorizationRequestsConfiguration() {
  const validate = (ctx: KoaContextWithOIDC, detail: unknown) => {
    if (ctx.oidc.route !== 'backchannel_authentication') throw invalid('authorization_details are accepted only in a backchannel authentication request (CIBA)');
    normalizeDetail(detail, resourceOfRequest(ctx));
  };
  return {
    enabled: true,
    types: Object.fromEntries(AUTHORIZATION_DETAILS_TYPES.map((type) => [type, { validate }])),
    // The code flow never carries details (validate refuses them): nothing to keep on a code.
    authorizationDetailsForGrantSource: () => undefined,
    // The details the person approved travel with the answer (provider.backchannelResult's `rar`); a token request
    // cannot add or change any (oidc-provider refuses authorization_details at the token endpoint for this grant).
    authorizationDetailsForAccessToken: (_ctx: KoaContextWithOIDC, _token: unknown, source: { rar?: unknown } | undefined) => source?.rar as undefined,
    authorizationDetailsForIntrospection: (_ctx: KoaContextWithOIDC, token: { rar?: unknown }) => token.rar as undefined,
  };
}
