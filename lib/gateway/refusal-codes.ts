// lib/gateway's refusals: an admin's change the gateway's rules refuse, and an upstream that failed a call. The
// words are the catalog's (refusals.gateway.*); an upstream's own text never goes into them.
import { localized, type MessageKey } from '../i18n/catalogs';
import { Refusal } from '../refusals/refusal';

export const GATEWAY_REFUSAL_STATUS = {
  invalid: 400,
  not_found: 404,
  conflict: 409,
  // The upstream could not be reached, answered garbage or too much: a bad gateway, in HTTP's words.
  upstream_unreachable: 502,
  upstream_invalid: 502,
  upstream_too_large: 502,
  upstream_timeout: 504,
  upstream_busy: 503,
  upstream_refused: 502,
  upstream_rpc_error: 502,
} as const satisfies Record<string, number>;

export type GatewayRefusalCode = keyof typeof GATEWAY_REFUSAL_STATUS;

export function gatewayRefusal(code: GatewayRefusalCode, key: string, values: Record<string, string | number> = {}, field?: string): Refusal {
  return new Refusal({ domain: 'gateway', status: GATEWAY_REFUSAL_STATUS[code], code, text: localized(`refusals.gateway.${key}` as MessageKey, values), ...(field ? { field } : {}) });
}

/** The same refusal, said next to a form's field (an upstream that failed to answer is about the address typed). */
export function atField(refusal: Refusal, field: string): Refusal {
  return new Refusal({ domain: refusal.domain, status: refusal.status, code: refusal.code, text: refusal.text ?? refusal.message, field });
}
