// lib/audit's refusal (issue 57): a chain that does not continue its archive.
import { Refusal } from '../refusals/refusal';

export const AUDIT_REFUSAL_STATUS = {
  // Archiving the chain would hide its break from `audit verify`.
  chain_break: 409,
} as const satisfies Record<string, number>;

/** What was archived anyway (lib/audit/archive.ts ArchiveReport), for the other chains when several were archived at once. */
interface ArchivedAnyway {
  segments: number;
  events: number;
}

/** A refusal that carries what was archived anyway. */
export type AuditArchiveRefusal = Refusal & { readonly report: ArchivedAnyway };

/** A chain that does not continue its archive: archiving it would hide the break from `audit verify`. */
export function auditArchiveRefusal(message: string, report: ArchivedAnyway = { segments: 0, events: 0 }): AuditArchiveRefusal {
  return Object.assign(new Refusal({ domain: 'audit_archive', status: AUDIT_REFUSAL_STATUS.chain_break, code: 'chain_break', text: message }), { report });
}
