// lib/mcp's refusals (issue 57): a tool's own (its error text) and a confirmation challenge's answer.
import type { LocalizedText } from '../i18n/catalogs';
import { Refusal } from '../refusals/refusal';

export const MCP_REFUSAL_STATUS = {
  // A tool refused what it was asked (no such app, not allowed): its error text, never a stack trace.
  refused: 400,
  // A challenge not there (or not the person's to answer), or answered or expired already.
  not_found: 404,
  decided: 409,
} as const satisfies Record<string, number>;

/** A refusal the caller can act on (no such app, not allowed): the tool's error text, never a stack trace. */
export function toolRefusal(text: string): Refusal {
  return new Refusal({ domain: 'tool', status: MCP_REFUSAL_STATUS.refused, code: 'refused', text });
}

/** A confirmation challenge refused. Its words as a catalog key (mcp.confirmationRefusals.…), for the page to show in the person's language. */
export function confirmationRefusal(code: 'not_found' | 'decided', text: LocalizedText): Refusal {
  return new Refusal({ domain: 'confirmation', status: MCP_REFUSAL_STATUS[code], code, text });
}
