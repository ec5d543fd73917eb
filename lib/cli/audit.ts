// `npm run portico -- audit verify [--org <slug>] [--archive <folder>]`: walks every audit chain (one per
// organization, one for installation events), archived events first, and names the first broken link of each.
// Exit code 1 when any chain is broken.
// `audit retention --org <slug> --days <n|forever>`: how long an organization's events stay in the database.
// `audit archive [--org <slug>] [--to <folder>]`: moves events past their retention into the archive now.
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { findOrganizationBySlug } from '../organizations/organizations';
import { archiveExpiredAuditEvents, AUDIT_RETENTION_DAYS } from '../audit/archive';
import type { AuditArchiveRefusal } from '../audit/refusal-codes';
import { refusalOf } from '../refusals/refusal';
import { verifyAuditChains } from '../audit/chain';
import { organizations } from '../db/schema';
import { env } from '../env';
import { terminalText } from '../util/visible-text';
import { CommandError, UsageError, type Command } from './command';
import { asOperator, organizationOf } from './org-scope';

/** The folder named on the command line, else PORTICO_AUDIT_ARCHIVE_DIR. */
function archiveFolderOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? path.resolve(value.trim()) : env().auditArchiveDir;
}

export const AUDIT_COMMANDS: Record<string, Command> = {
  verify: {
    async run(ctx, values) {
      let orgId: string | undefined;
      if (typeof values.org === 'string') {
        const org = await findOrganizationBySlug(ctx.db, values.org);
        if (!org) throw new CommandError(`No organization "${terminalText(values.org)}".`);
        orgId = org.id;
      }
      const reports = await verifyAuditChains(ctx.db, { orgId, archiveFolder: archiveFolderOf(values.archive) });
      if (reports.length === 0) ctx.out('No audit events yet.');
      const broken = reports.filter((report) => report.broken);
      for (const report of reports) {
        const name = report.chain === '' ? 'installation' : `organization ${report.orgSlug ? terminalText(report.orgSlug) : `${report.chain} (deleted)`}`;
        ctx.out(
          report.broken
            ? `BROKEN  ${name}: at event #${report.broken.seq}${report.broken.eventId !== null ? ` (id ${report.broken.eventId})` : ''}: ${terminalText(report.broken.problem)}`
            : `intact  ${name}: ${report.events} events, head #${report.headSeq} ${report.headHash}`,
        );
      }
      if (broken.length > 0) throw new CommandError(`${broken.length} audit chain${broken.length === 1 ? ' is' : 's are'} broken: the events named above (and everything after them) cannot be trusted.`);
      // Keep the head hashes somewhere else (a ticket, a log store): they reveal a rewritten tail later.
      ctx.out('All audit chains are intact. Record the head hashes elsewhere to detect a rewritten tail later.');
    },
  },
  retention: {
    async run(ctx, values) {
      const org = await organizationOf(ctx, values);
      const given = typeof values.days === 'string' ? values.days.trim().toLowerCase() : '';
      if (!given) throw new UsageError('--days is required: a number of days, or forever');
      let days: number | null;
      if (given === 'forever') days = null;
      else if (/^\d+$/.test(given) && Number(given) >= AUDIT_RETENTION_DAYS.min && Number(given) <= AUDIT_RETENTION_DAYS.max) days = Number(given);
      else throw new UsageError(`--days must be a whole number from ${AUDIT_RETENTION_DAYS.min} to ${AUDIT_RETENTION_DAYS.max}, or forever`);
      await asOperator(ctx, org, async (operation) => {
        await operation.tx.update(organizations).set({ auditRetentionDays: days }).where(eq(organizations.id, org.id));
        await operation.audit({
          action: 'audit.retention_changed',
          subject: { type: 'organization', id: org.id, label: org.name },
          details: { from: org.auditRetentionDays ?? null, to: days },
        });
      });
      const slug = terminalText(org.slug);
      if (days === null) {
        ctx.out(`${slug}: audit events stay in the database for ever (events already archived stay in the archive).`);
        return;
      }
      const folder = env().auditArchiveDir;
      ctx.out(
        folder
          ? `${slug}: audit events older than ${days} days move to ${terminalText(folder)} within the hour (or now: npm run portico -- audit archive --org ${slug}).`
          : `${slug}: audit events older than ${days} days will move to the archive once PORTICO_AUDIT_ARCHIVE_DIR is set; until then they stay in the database (or archive by hand: npm run portico -- audit archive --org ${slug} --to <folder>).`,
      );
    },
  },
  archive: {
    async run(ctx, values) {
      const folder = archiveFolderOf(values.to);
      if (!folder) throw new UsageError('no archive folder: set PORTICO_AUDIT_ARCHIVE_DIR, or give --to <folder>');
      const orgId = typeof values.org === 'string' ? (await organizationOf(ctx, values)).id : undefined;
      try {
        const report = await archiveExpiredAuditEvents(ctx.db, { folder, orgId });
        ctx.out(report.events === 0 ? 'No audit event is past its retention.' : `Archived ${report.events} audit events in ${report.segments} files under ${terminalText(folder)}.`);
      } catch (error) {
        // What was archived anyway, for the other chains; the refusal itself is the CLI's to answer (index.ts).
        const report = (refusalOf(error, 'audit_archive') as AuditArchiveRefusal | undefined)?.report;
        if (report && report.events > 0) ctx.out(`Archived ${report.events} audit events in ${report.segments} files under ${terminalText(folder)}.`);
        throw error;
      }
    },
  },
};
