// The one decision rule behind every door that asks "may this subject do this operation now": the app kit's MCP
// handler (tools it lists, the 403 insufficient_scope for a call), Portico's own MCP server and the gateway (the
// same), and Portico's AuthZEN decision point (lib/authzen/). The doors differ only in where the facts come from —
// a token's scope verified locally, or the subject's effective permissions read from Portico's database — and in
// how an approval arrives (a confirmed challenge for this very call, or an operator's grant while it lasts).
import type { RiskLevel } from './risk';

/** What an operation needs and what the subject holds, as one door found them. */
export interface OperationFacts {
  /** The permissions (scopes) the subject holds for this app now. */
  held: Iterable<string>;
  /** The permissions the operation needs (a tool's `requiredScopes`; `mcp` when it declares none). */
  required: readonly string[];
  /** The operation's risk level (app-kit/risk.ts). */
  level: RiskLevel;
  /**
   * How an approval_required operation was approved, if it was: `confirmed` — the person confirmed this exact call
   * (the confirmation gate); `granted` — an operator's grant in the approval central covers it and lasts now.
   */
  approval?: 'confirmed' | 'granted';
}

export type OperationDecision =
  | { allowed: true; level: RiskLevel; approval?: 'confirmed' | 'granted' }
  /** The subject lacks permissions the operation needs (named in `missing`): asking again changes nothing. */
  | { allowed: false; reason: 'permission_missing'; level: RiskLevel; missing: string[] }
  /** The subject may do it, once a person approves: a confirmation of this call, or an access request's grant. */
  | { allowed: false; reason: 'approval_required'; level: RiskLevel; missing: [] };

/** The permissions in `required` that `held` lacks, in the order required names them. */
export function missingPermissions(held: Iterable<string>, required: readonly string[]): string[] {
  const holds = held instanceof Set ? (held as Set<string>) : new Set(held);
  return required.filter((scope) => !holds.has(scope));
}

/**
 * The decision: every permission the operation needs, then its level — an approval_required operation runs only
 * once approved (by the person for this call, or by an operator's grant); safe, caution and review ones run
 * (caution and review are audited by the door, not decided differently).
 */
export function decideOperation(facts: OperationFacts): OperationDecision {
  const missing = missingPermissions(facts.held, facts.required);
  if (missing.length > 0) return { allowed: false, reason: 'permission_missing', level: facts.level, missing };
  if (facts.level === 'approval_required') {
    if (facts.approval) return { allowed: true, level: facts.level, approval: facts.approval };
    return { allowed: false, reason: 'approval_required', level: facts.level, missing: [] };
  }
  return { allowed: true, level: facts.level };
}
