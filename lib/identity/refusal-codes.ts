// lib/identity's refusals (issue 57): SCIM's, in RFC 7644 §3.12's terms — the status, and the scimType where one
// applies (then it is the code).
import { Refusal } from '../refusals/refusal';

export const SCIM_TYPES = ['invalidFilter', 'uniqueness', 'mutability', 'invalidSyntax', 'invalidPath', 'invalidValue', 'noTarget'] as const;
export type ScimType = (typeof SCIM_TYPES)[number];
export type ScimStatus = 400 | 401 | 404 | 409 | 413 | 501;

/** The code of a SCIM refusal with no scimType, by its status. */
export const SCIM_REFUSAL_CODE = {
  400: 'invalid_request',
  401: 'unauthorized',
  404: 'not_found',
  409: 'conflict',
  413: 'too_large',
  501: 'not_implemented',
} as const satisfies Record<ScimStatus, string>;

/** A refusal in SCIM's terms: the status, the scimType where one applies, and what was wrong. */
export function scimRefusal(status: ScimStatus, detail: string, scimType?: ScimType): Refusal {
  return new Refusal({ domain: 'scim', status, code: scimType ?? SCIM_REFUSAL_CODE[status], text: detail });
}

/** A SCIM refusal's scimType, if its code is one. */
export function scimTypeOf(refusal: Refusal): ScimType | undefined {
  return (SCIM_TYPES as readonly string[]).includes(refusal.code) ? (refusal.code as ScimType) : undefined;
}
