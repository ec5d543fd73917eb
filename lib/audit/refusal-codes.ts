// lib/audit's refusal (issue 57): a chain that does not continue its archive.
import { Refusal } from '../refusals/refusal';
import type { ArchiveReport } from './archive';

export const AUDIT_REFUSAL_STATUS = {
  // Archiving the chain would hide its break from `audit verify`.
  chain_break: 409,
} as const satisfies Record<string, number>;

/** A refusal that carries what was archived anyway, for the other chains (when several were archived at once). */
export type AuditArchiveRefusal = Refusal & { readonly report: ArchiveReport };

/** A chain that does not continue its archive: archiving it would hide the break from `audit verify`. */
export function auditArchiveRefusal(message: string, report: ArchiveReport = { segments: 0, events: 0 }): AuditArchiveRefusal {
  return Object.assign(new Refusal({ domain: 'audit_archive', status: AUDIT_REFUSAL_STATUS.chain_break, code: 'chain_break', text: message }), { report });
}
