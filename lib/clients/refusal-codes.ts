// lib/clients's refusals (issue 57): a permission catalog change, an external client's metadata. Both are domain
// command refusals (every door shows them as such); their codes are what a REST answer names.
import type { LocalizedText } from '../i18n/catalogs';
import { Refusal } from '../refusals/refusal';

export const CLIENT_REFUSAL_STATUS = {
  // A catalog change refused (a scope's form, the baseline, an entry not there or not active).
  invalid_request: 400,
  // RFC 7591 §3.2.2: the metadata refused, the redirect URIs in particular.
  invalid_client_metadata: 400,
  invalid_redirect_uri: 400,
} as const satisfies Record<string, number>;

/** A refusal of a catalog change; its words in the catalogs (`message` is English). */
export function catalogRefusal(text: LocalizedText): Refusal {
  return new Refusal({ domain: 'command', status: CLIENT_REFUSAL_STATUS.invalid_request, code: 'invalid_request', text });
}

/** A refusal of an external client's metadata, naming the field (for the form) and the RFC 7591 error (for REST). */
export function clientMetadataRefusal(field: 'label' | 'redirect_uris', text: string | LocalizedText): Refusal {
  const code = field === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata';
  return new Refusal({ domain: 'command', status: CLIENT_REFUSAL_STATUS[code], code, text, field });
}
