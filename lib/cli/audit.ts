// `npm run portico -- audit verify [--org <slug>]`: walks every audit chain (one per organization, one for
// installation events) and names the first broken link of each. Exit code 1 when any chain is broken.
import { findOrganizationBySlug } from '../accounts/organizations';
import { verifyAuditChains } from '../audit/chain';
import { CommandError, type Command } from './command';

export const AUDIT_COMMANDS: Record<string, Command> = {
  verify: {
    async run(ctx, values) {
      let orgId: string | undefined;
      if (typeof values.org === 'string') {
        const org = await findOrganizationBySlug(ctx.db, values.org);
        if (!org) throw new CommandError(`No organization "${values.org}".`);
        orgId = org.id;
      }
      const reports = await verifyAuditChains(ctx.db, { orgId });
      if (reports.length === 0) ctx.out('No audit events yet.');
      const broken = reports.filter((report) => report.broken);
      for (const report of reports) {
        const name = report.chain === '' ? 'installation' : `organization ${report.orgSlug ?? `${report.chain} (deleted)`}`;
        ctx.out(
          report.broken
            ? `BROKEN  ${name}: at event #${report.broken.seq}${report.broken.eventId !== null ? ` (id ${report.broken.eventId})` : ''}: ${report.broken.problem}`
            : `intact  ${name}: ${report.events} events, head #${report.headSeq} ${report.headHash}`,
        );
      }
      if (broken.length > 0) throw new CommandError(`${broken.length} audit chain${broken.length === 1 ? ' is' : 's are'} broken: the events named above (and everything after them) cannot be trusted.`);
      // Keep the head hashes somewhere else (a ticket, a log store): they reveal a rewritten tail later.
      ctx.out('All audit chains are intact. Record the head hashes elsewhere to detect a rewritten tail later.');
    },
  },
};
