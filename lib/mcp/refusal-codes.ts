// lib/mcp's refusals (issue 57): a tool's own (its error text). A confirmation's: lib/confirmations/refusal-codes.ts.
import { Refusal } from '../refusals/refusal';

export const MCP_REFUSAL_STATUS = {
  // A tool refused what it was asked (no such app, not allowed): its error text, never a stack trace.
  refused: 400,
} as const satisfies Record<string, number>;

/** A refusal the caller can act on (no such app, not allowed): the tool's error text, never a stack trace. */
export function toolRefusal(text: string): Refusal {
  return new Refusal({ domain: 'tool', status: MCP_REFUSAL_STATUS.refused, code: 'refused', text });
}
