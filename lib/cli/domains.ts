// `npm run portico -- domains …`: an organization's verified domains from the server machine, with the CLI's local
// authority (its events are operator_cli's). The same commands as the console's Settings → Identity
// (lib/identity/domains.ts).
import { env } from '../env';
import { addDomain, checkFailureOf, domainCheckDeps, listDomains, proveDomain, recordDomainCheck, removeDomain, verificationInstructions, type DomainCheckFailure, type OrgDomain } from '../identity/domains';
import { CommandError, printList, UsageError, type CliContext, type Command } from './command';
import { asOperator, operatorContext, organizationOf } from './org-scope';

function domainOf(values: Record<string, unknown>): string {
  const domain = typeof values.domain === 'string' ? values.domain.trim() : '';
  if (!domain) throw new UsageError('--domain is required');
  return domain;
}

/** What a check did not find, in the operator's words. */
function failureText(failure: DomainCheckFailure): string {
  const dns = { no_record: 'no TXT record', other_value: 'the TXT record holds another value', lookup_failed: 'the DNS lookup failed' }[failure.dns];
  const https = { not_found: 'the file answered 404', other_content: 'the file holds other content', not_allowed: 'the domain is not on a public address', unreachable: 'the domain could not be reached', status: `the file answered ${failure.status}` }[failure.https];
  return `${dns}; ${https}`;
}

function printInstructions(ctx: CliContext, domain: OrgDomain): void {
  const how = verificationInstructions(domain);
  ctx.out('Publish one of these, then run `domains check`:');
  ctx.out(`  a DNS TXT record  ${how.dnsName}  "${how.dnsValue}"`);
  ctx.out(`  or the file       ${how.fileUrl}  containing ${how.fileContent}`);
}

export const DOMAIN_COMMANDS: Record<string, Command> = {
  list: {
    async run(ctx, values) {
      const org = await organizationOf(ctx, values);
      const domains = await listDomains(ctx.db, org.id);
      if (domains.length === 0) ctx.out(`${org.slug} has no domains.`);
      printList(
        ctx,
        ['DOMAIN', 'STATE', 'LAST CHECK'],
        domains.map((domain) => {
          const failure = domain.verifiedAt ? undefined : checkFailureOf(domain);
          return [domain.domain, domain.verifiedAt ? `verified (${domain.verifiedBy}) ${domain.verifiedAt.toISOString()}` : 'not verified', failure ? failureText(failure) : ''];
        }),
      );
    },
  },
  add: {
    async run(ctx, values) {
      const org = await organizationOf(ctx, values);
      const added = await asOperator(ctx, org, (operation) => addDomain(operatorContext(operation), domainOf(values)));
      ctx.out(`Added ${added.domain} to ${org.slug}.`);
      printInstructions(ctx, added);
    },
  },
  check: {
    async run(ctx, values) {
      const org = await organizationOf(ctx, values);
      // The network first, outside any transaction; then what it found, audited.
      const proof = await proveDomain(ctx.db, domainCheckDeps(env()), org.id, domainOf(values));
      const checked = await asOperator(ctx, org, (operation) => recordDomainCheck(operatorContext(operation), proof));
      if (checked.verified) {
        ctx.out(`${checked.domain.domain} is verified (${checked.domain.verifiedBy}).`);
        return;
      }
      printInstructions(ctx, checked.domain);
      throw new CommandError(`${checked.domain.domain} is not verified yet: ${failureText(checked.failure)}.`);
    },
  },
  remove: {
    async run(ctx, values) {
      const org = await organizationOf(ctx, values);
      const removed = await asOperator(ctx, org, (operation) => removeDomain(operatorContext(operation), domainOf(values)));
      ctx.out(`Removed ${removed.domain} from ${org.slug}.`);
    },
  },
};
