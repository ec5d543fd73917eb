// `npm run portico -- servers …`: an organization's upstream MCP servers behind the gateway (issue 58), from the server
// machine with the CLI's local authority (its events are operator_cli's). The same domain code as the console's
// (lib/gateway/servers.ts, and lib/gateway/doors.ts for what reads the upstream first): a tool is offered to agents
// only once approved at the definition the operator read — `approve` prints that definition and its digest, and
// approves only when given the digest back. A credential is never taken from the command line (shell history, `ps`):
// it comes from the CLI's standard input or one of its environment variables (./secret-input.ts), is sealed at
// once, and is never printed. Everything the upstream said (names, descriptions, schemas) goes through terminalText.
import { eq } from 'drizzle-orm';
import { isRiskLevel, type RiskLevel } from '../../app-kit/risk';
import { apps } from '../db/schema';
import { env } from '../env';
import { addServerFromUpstream, refreshServerTools, type GatewayDoorDeps } from '../gateway/doors';
import { definitionChanges, type ToolDefinition } from '../gateway/definitions';
import {
  approveGatewayTool,
  findGatewayServer,
  gatewayToolsOf,
  LIMIT_RANGES,
  listGatewayServers,
  removeGatewayServer,
  setGatewayCredential,
  setGatewayLimits,
  setGatewayServerDisabled,
  setGatewayToolLevel,
  setGatewayToolPermission,
  toolStateOf,
  type GatewayLimits,
  type GatewayServer,
  type GatewayToolRow,
} from '../gateway/servers';
import { deliveryPolicy } from '../http/outbound';
import type { Organization } from '../organizations/organizations';
import { terminalText } from '../util/visible-text';
import { CLI_PREFIX } from './catalog';
import { CommandError, namedPositionals, optionText, printList, requiredOptionText, UsageError, type CliContext, type Command } from './command';
import { asOperator, operatorScope, organizationOf } from './org-scope';
import { ENV_NAME, type SecretSource } from './secret-input';

type Values = Record<string, unknown>;

const LEVELS_TEXT = 'safe, caution, review or approval_required';

/** What the doors need to reach an upstream: the installation's outbound policy (a test's own, when it gives one). */
const deps = (ctx: CliContext): GatewayDoorDeps => ({ issuer: ctx.issuer, atRestKey: ctx.atRestKey, outboundPolicy: ctx.outbound ?? deliveryPolicy(env()) });

const POSITIONAL_HINTS: Record<string, string> = {
  server: 'name the server (its short name, from servers list)',
  tool: 'name the tool (from servers tools <server>)',
  level: `name the level: ${LEVELS_TEXT}`,
  permission: 'name the permission (mcp lets every member, or a scope of your choosing)',
};

async function serverOf(ctx: CliContext, org: Organization, slug: string): Promise<GatewayServer> {
  const server = await findGatewayServer(ctx.db, org.id, slug);
  if (!server) throw new CommandError(`${org.slug} has no MCP server "${terminalText(slug)}". List them with: ${CLI_PREFIX} servers list --org ${org.slug}`);
  return server;
}

async function toolOf(ctx: CliContext, org: Organization, server: GatewayServer, name: string): Promise<GatewayToolRow> {
  const tool = (await gatewayToolsOf(ctx.db, server.id)).find((row) => row.name === name);
  if (!tool) throw new CommandError(`${server.slug} has no tool "${terminalText(name)}". List them with: ${CLI_PREFIX} servers tools ${server.slug} --org ${org.slug}`);
  return tool;
}

const LIMIT_OPTIONS = { 'timeout-ms': 'timeoutMs', 'max-response-bytes': 'maxResponseBytes', 'max-concurrent': 'maxConcurrentCalls' } as const satisfies Record<string, keyof GatewayLimits>;

/** The limits given on the command line, each a whole number in its range (said with the option's own name). */
function limitsOf(values: Values): Partial<GatewayLimits> {
  const limits: Partial<GatewayLimits> = {};
  for (const [option, field] of Object.entries(LIMIT_OPTIONS)) {
    const given = optionText(values, option);
    if (given === undefined) continue;
    const range = LIMIT_RANGES[field];
    const value = Number(given);
    if (!/^\d+$/.test(given) || value < range.min || value > range.max) throw new UsageError(`--${option} must be a whole number from ${range.min} to ${range.max}`);
    limits[field] = value;
  }
  return limits;
}

/**
 * The credential the options name: --header with its value from the CLI's stdin or one of its variables, or
 * nothing. Its value never comes from argv, is never printed, and is in no message.
 */
async function credentialOf(ctx: CliContext, values: Values): Promise<{ header: string; value: string } | undefined> {
  const header = optionText(values, 'header');
  const fromStdin = values['credential-stdin'] === true;
  const variable = typeof values['credential-env'] === 'string' ? values['credential-env'].trim() : undefined;
  if (header === undefined) {
    if (fromStdin || variable !== undefined) throw new UsageError('name the header the credential goes in with --header <name>');
    return undefined;
  }
  if (fromStdin === (variable !== undefined)) throw new UsageError('with --header, give the credential with --credential-stdin or --credential-env <VAR> (one of them): never on the command line');
  if (variable !== undefined && !ENV_NAME.test(variable)) throw new UsageError('--credential-env takes the name of an environment variable (letters, digits and _), not its value');
  const source: SecretSource = fromStdin ? { from: 'stdin', prompt: `The value of the ${terminalText(header)} header` } : { from: 'env', name: variable! };
  if (!ctx.readSecret) throw new CommandError('This terminal cannot hand over a credential: run the command with npm run portico.');
  let value: string | undefined;
  try {
    value = await ctx.readSecret(source);
  } catch (error) {
    throw new CommandError(`The credential could not be read: ${terminalText(error instanceof Error ? error.message : String(error))}.`);
  }
  if (value === undefined) {
    throw new CommandError(
      fromStdin
        ? `No credential came on standard input: type it when asked, or pipe it in (printf %s "$TOKEN" | ${CLI_PREFIX} servers …). Nothing was changed.`
        : `The environment variable ${variable} is not set, or is empty, where the CLI runs. Nothing was changed.`,
    );
  }
  return { header, value };
}

function limitsText(server: GatewayServer): string {
  return `calls up to ${server.timeoutMs} ms, answers up to ${server.maxResponseBytes} bytes, ${server.maxConcurrentCalls} calls at once`;
}

function printToolTable(ctx: CliContext, tools: readonly GatewayToolRow[]): void {
  printList(
    ctx,
    ['TOOL', 'STATE', 'LEVEL', 'PROPOSED', 'PERMISSION'],
    tools.map((tool) => [terminalText(tool.name), toolStateOf(tool), tool.riskLevel, tool.proposedLevel, terminalText(tool.permission)]),
  );
}

/** Multi-line outside text, each line escaped, under a label (and aligned after it). */
function printBlock(ctx: CliContext, label: string, value: string): void {
  const lines = value === '' ? ['(none)'] : value.split(/\r?\n/);
  lines.forEach((line, index) => ctx.out(`${index === 0 ? label : ' '.repeat(label.length)}${terminalText(line)}`));
}

/** What changed in a tool since its approval, field by field. */
function printChanges(ctx: CliContext, tool: GatewayToolRow): void {
  ctx.out(`${terminalText(tool.name)} changed since it was approved; agents are not offered it until it is approved again. What changed:`);
  for (const change of definitionChanges(tool.approvedDefinition as ToolDefinition | null, tool.offeredDefinition as ToolDefinition)) {
    ctx.out(`  ${change.field}`);
    printBlock(ctx, '    before  ', change.before);
    printBlock(ctx, '    after   ', change.after);
  }
}

/** The tools as stored, then what changed in each changed one. */
function printTools(ctx: CliContext, server: GatewayServer, tools: readonly GatewayToolRow[]): void {
  if (tools.length === 0) {
    ctx.out(`${server.slug} offers no tools (as last read).`);
    return;
  }
  printToolTable(ctx, tools);
  for (const tool of tools.filter((row) => toolStateOf(row) === 'changed')) {
    ctx.out('');
    printChanges(ctx, tool);
  }
}

function serverSwitch(disabled: boolean): Command {
  return {
    async run(ctx, values, positionals) {
      const org = await organizationOf(ctx, values);
      const server = await serverOf(ctx, org, namedPositionals(positionals, ['server'], POSITIONAL_HINTS).server);
      const changed = await asOperator(ctx, org, (operation) => setGatewayServerDisabled(operation, server, disabled), 'at_most_one');
      if (!changed) throw new CommandError(`${server.slug} is ${disabled ? 'off' : 'on'} already.`);
      ctx.out(disabled ? `${server.slug} is off: no token is issued for it and nobody calls it; its grants and tools wait.` : `${server.slug} is on again.`);
    },
  };
}

export const SERVER_COMMANDS: Record<string, Command> = {
  list: {
    async run(ctx, values) {
      const org = await organizationOf(ctx, values);
      const servers = await listGatewayServers(ctx.db, org.id);
      if (servers.length === 0) ctx.out(`${org.slug} has no MCP servers. Add one with: ${CLI_PREFIX} servers add --org ${org.slug} --name <name> --url <url>`);
      const rows: string[][] = [];
      for (const server of servers) {
        const states = (await gatewayToolsOf(ctx.db, server.id)).map(toolStateOf);
        const count = (state: string) => String(states.filter((each) => each === state).length);
        rows.push([server.slug, terminalText(server.name), terminalText(server.url), server.status, server.disabledAt ? 'off' : 'on', count('approved'), count('pending'), count('changed'), count('removed')]);
      }
      printList(ctx, ['SERVER', 'NAME', 'URL', 'STATUS', 'ON', 'APPROVED', 'PENDING', 'CHANGED', 'REMOVED'], rows);
    },
  },
  add: {
    async run(ctx, values, positionals) {
      namedPositionals(positionals, [], POSITIONAL_HINTS);
      const org = await organizationOf(ctx, values);
      const input = { name: requiredOptionText(values, 'name'), url: requiredOptionText(values, 'url'), slug: optionText(values, 'slug'), limits: limitsOf(values) };
      const credential = await credentialOf(ctx, values);
      // The upstream is read first (outside any transaction), then the server and its tools are recorded as one operation.
      const added = await addServerFromUpstream(ctx.db, operatorScope(ctx, org), { ...input, ...(credential ? { credential } : {}) }, deps(ctx));
      const server = added.server;
      ctx.out(`Added ${terminalText(server.name)} (${server.slug}) to ${org.slug}. MCP clients reach it through Portico at:`);
      ctx.out(`  ${terminalText(server.resource)}`);
      if (credential) ctx.out(`Portico sends the upstream its credential in the ${terminalText(credential.header)} header; the value is sealed and never shown.`);
      const tools = await gatewayToolsOf(ctx.db, server.id);
      if (tools.length === 0) ctx.out(`The upstream offers no tools yet: read it again with ${CLI_PREFIX} servers tools ${server.slug} --org ${org.slug} --refresh`);
      else {
        ctx.out(`Read ${tools.length} tool(s), each pending: none is offered to agents until you approve it.`);
        printList(ctx, ['TOOL', 'PROPOSED LEVEL', 'STATE'], tools.map((tool) => [terminalText(tool.name), tool.proposedLevel, toolStateOf(tool)]));
      }
      if (added.skipped > 0) ctx.out(`${added.skipped} more could not be pinned (no object input schema, a name MCP does not allow, or a name twice) and are not offered.`);
      if (tools.length > 0) ctx.out(`Read each and approve it with: ${CLI_PREFIX} servers approve ${server.slug} <tool> --org ${org.slug}`);
    },
  },
  show: {
    async run(ctx, values, positionals) {
      const org = await organizationOf(ctx, values);
      const server = await serverOf(ctx, org, namedPositionals(positionals, ['server'], POSITIONAL_HINTS).server);
      ctx.out(`server      ${server.slug}`);
      ctx.out(`name        ${terminalText(server.name)}`);
      ctx.out(`resource    ${terminalText(server.resource)}`);
      ctx.out(`upstream    ${terminalText(server.url)}`);
      ctx.out(`credential  ${server.credentialKind === 'header' && server.credentialHeader ? `header ${terminalText(server.credentialHeader)} (sealed; never shown)` : 'none'}`);
      ctx.out(`limits      ${limitsText(server)}`);
      ctx.out(`status      ${server.status}${server.statusDetail ? ` (${terminalText(server.statusDetail)})` : ''}${server.checkedAt ? `, checked ${server.checkedAt.toISOString()}` : ''}`);
      ctx.out(`state       ${server.disabledAt ? `off since ${server.disabledAt.toISOString()}` : 'on'}`);
      ctx.out(`added       ${server.createdAt.toISOString()}`);
      ctx.out('');
      printTools(ctx, server, await gatewayToolsOf(ctx.db, server.id));
    },
  },
  tools: {
    async run(ctx, values, positionals) {
      const org = await organizationOf(ctx, values);
      const server = await serverOf(ctx, org, namedPositionals(positionals, ['server'], POSITIONAL_HINTS).server);
      if (values.refresh === true) {
        const read = await refreshServerTools(ctx.db, operatorScope(ctx, org), server, deps(ctx));
        const tools = await gatewayToolsOf(ctx.db, server.id);
        const stateOf = new Map(tools.map((tool) => [tool.name, toolStateOf(tool)]));
        const names = (list: string[]) => list.map(terminalText).join(', ');
        // A definition that changed back to the one approved is offered again; any other change waits for an approval.
        const changedBack = read.changed.filter((name) => stateOf.get(name) === 'approved');
        const changed = read.changed.filter((name) => stateOf.get(name) !== 'approved');
        const changes = read.added.length + read.changed.length + read.removed.length + read.returned.length;
        ctx.out(changes === 0 ? `Read ${server.slug} again: its tools are as they were.` : `Read ${server.slug} again:`);
        if (read.added.length > 0) ctx.out(`  added (pending approval): ${names(read.added)}`);
        if (changed.length > 0) ctx.out(`  changed (not offered until approved at the new definition): ${names(changed)}`);
        if (changedBack.length > 0) ctx.out(`  changed back to the approved definition (offered): ${names(changedBack)}`);
        if (read.removed.length > 0) ctx.out(`  removed (offered to nobody): ${names(read.removed)}`);
        if (read.returned.length > 0) ctx.out(`  offered by the upstream again: ${names(read.returned)}`);
        if (read.skipped > 0) ctx.out(`  ${read.skipped} could not be pinned (no object input schema, a name MCP does not allow, or a name twice) and are not offered`);
        ctx.out('');
        printTools(ctx, server, tools);
        return;
      }
      printTools(ctx, server, await gatewayToolsOf(ctx.db, server.id));
    },
  },
  approve: {
    async run(ctx, values, positionals) {
      const org = await organizationOf(ctx, values);
      const level = optionText(values, 'level');
      if (level !== undefined && !isRiskLevel(level)) throw new UsageError(`--level must be ${LEVELS_TEXT}`);
      if (values.all === true) {
        if (values.digest !== undefined || level !== undefined) throw new UsageError('--all approves each pending tool at its definition now and at its own level: leave out --digest and --level');
        const server = await serverOf(ctx, org, namedPositionals(positionals, ['server'], POSITIONAL_HINTS).server);
        const tools = await gatewayToolsOf(ctx.db, server.id);
        const pending = tools.filter((tool) => toolStateOf(tool) === 'pending');
        if (pending.length === 0) ctx.out(`No tool of ${server.slug} waits for its first approval.`);
        // One operation (and one audit event) per tool, each at the definition stored now.
        for (const tool of pending) {
          const approved = await asOperator(ctx, org, (operation) => approveGatewayTool(operation, server, { tool: tool.name, digest: tool.offeredDigest, approvedBy: null }));
          ctx.out(`Approved ${terminalText(approved.name)} at ${approved.riskLevel}.`);
        }
        const changed = tools.filter((tool) => toolStateOf(tool) === 'changed');
        if (changed.length > 0) ctx.out(`Not approved by --all, as they changed since their approval: ${changed.map((tool) => terminalText(tool.name)).join(', ')}. Read each with: ${CLI_PREFIX} servers approve ${server.slug} <tool> --org ${org.slug}`);
        return;
      }
      const given = namedPositionals(positionals, ['server', 'tool'], POSITIONAL_HINTS);
      const server = await serverOf(ctx, org, given.server);
      const tool = await toolOf(ctx, org, server, given.tool);
      const state = toolStateOf(tool);
      const digest = optionText(values, 'digest');
      if (digest !== undefined) {
        const approved = await asOperator(ctx, org, (operation) => approveGatewayTool(operation, server, { tool: tool.name, digest, ...(level ? { level: level as RiskLevel } : {}), approvedBy: null }));
        ctx.out(`Approved ${terminalText(approved.name)} on ${server.slug} at ${approved.riskLevel}: tokens with ${terminalText(approved.permission)} may call it.`);
        return;
      }
      if (state === 'removed') throw new CommandError(`The upstream no longer offers ${terminalText(tool.name)}: there is nothing to approve.`);
      // The definition first, every line of it escaped; the digest and what to do after it.
      if (state === 'changed') {
        printChanges(ctx, tool);
        ctx.out('');
      }
      ctx.out(`tool        ${terminalText(tool.name)} on ${server.slug}`);
      ctx.out(`state       ${state}`);
      ctx.out(`level       ${tool.riskLevel} (proposed ${tool.proposedLevel})`);
      ctx.out(`permission  ${terminalText(tool.permission)}`);
      printBlock(ctx, 'definition  ', JSON.stringify(tool.offeredDefinition, null, 2));
      ctx.out(`digest      ${tool.offeredDigest}`);
      if (state === 'approved') {
        ctx.out(`${terminalText(tool.name)} is approved at this definition already.`);
        return;
      }
      throw new CommandError(`Nothing approved. Having read this definition, approve it with: ${CLI_PREFIX} servers approve ${server.slug} ${tool.name} --org ${org.slug} --digest=${tool.offeredDigest}`);
    },
  },
  'set-level': {
    async run(ctx, values, positionals) {
      const given = namedPositionals(positionals, ['server', 'tool', 'level'], POSITIONAL_HINTS);
      if (!isRiskLevel(given.level)) throw new UsageError(`the level is ${LEVELS_TEXT}, not "${terminalText(given.level)}"`);
      const level = given.level;
      const org = await organizationOf(ctx, values);
      const server = await serverOf(ctx, org, given.server);
      const tool = await toolOf(ctx, org, server, given.tool);
      const changed = await asOperator(ctx, org, (operation) => setGatewayToolLevel(operation, server, tool.name, level), 'at_most_one');
      if (!changed) throw new CommandError(`${terminalText(tool.name)} runs at ${level} already.`);
      ctx.out(`${terminalText(tool.name)} on ${server.slug} now runs at ${level}${level === 'approval_required' ? ': a person confirms each call' : ''}.`);
    },
  },
  'set-permission': {
    async run(ctx, values, positionals) {
      const given = namedPositionals(positionals, ['server', 'tool', 'permission'], POSITIONAL_HINTS);
      const org = await organizationOf(ctx, values);
      const server = await serverOf(ctx, org, given.server);
      const tool = await toolOf(ctx, org, server, given.tool);
      const changed = await asOperator(ctx, org, (operation) => setGatewayToolPermission(operation, server, tool.name, given.permission), 'at_most_one');
      if (!changed) throw new CommandError(`${terminalText(tool.name)} needs ${terminalText(given.permission)} already.`);
      ctx.out(`${terminalText(tool.name)} on ${server.slug} now needs ${terminalText(given.permission)}.`);
      if (given.permission !== 'mcp') {
        // The server stands as an app in the permissions model: its permissions are granted as any app's.
        const [app] = await ctx.db.select({ slug: apps.slug }).from(apps).where(eq(apps.id, server.appId)).limit(1);
        if (app) ctx.out(`Grant it as any app’s permission, such as: ${CLI_PREFIX} teams grant --org ${org.slug} --team <team> --app ${app.slug} --scope ${terminalText(given.permission)}`);
      }
    },
  },
  disable: serverSwitch(true),
  enable: serverSwitch(false),
  remove: {
    async run(ctx, values, positionals) {
      const org = await organizationOf(ctx, values);
      const server = await serverOf(ctx, org, namedPositionals(positionals, ['server'], POSITIONAL_HINTS).server);
      ctx.out(`${server.slug}\t${terminalText(server.name)}\t${terminalText(server.url)}`);
      if (values.yes !== true && !(await ctx.confirm(`Remove ${terminalText(server.name)} (${server.slug}) for good, with its tools and every grant at it?`))) {
        throw new CommandError('Not confirmed: nothing was changed. (Without a terminal, pass --yes.)');
      }
      await asOperator(ctx, org, (operation) => removeGatewayServer(operation, server));
      ctx.out(`Removed ${server.slug} from ${org.slug}; its tools and grants went with it. Access tokens already issued for it end within 10 minutes, and nothing reaches the upstream through Portico from now on.`);
    },
  },
  'set-credential': {
    async run(ctx, values, positionals) {
      const given = namedPositionals(positionals, ['server'], POSITIONAL_HINTS);
      const none = values.none === true;
      if (none && (values.header !== undefined || values['credential-stdin'] === true || values['credential-env'] !== undefined)) throw new UsageError('--none, or --header with its credential: not both');
      if (!none && values.header === undefined) throw new UsageError('give --header <name> with --credential-stdin or --credential-env <VAR>, or --none');
      const org = await organizationOf(ctx, values);
      const server = await serverOf(ctx, org, given.server);
      const credential = none ? null : ((await credentialOf(ctx, values)) ?? null);
      await asOperator(ctx, org, (operation) => setGatewayCredential(operation, server, credential, ctx.atRestKey));
      ctx.out(
        credential
          ? `Portico now sends ${server.slug} its credential in the ${terminalText(credential.header)} header; the value is sealed and never shown. Check that the upstream takes it: ${CLI_PREFIX} servers tools ${server.slug} --org ${org.slug} --refresh`
          : `Portico sends ${server.slug} no credential from now on.`,
      );
    },
  },
  'set-limits': {
    async run(ctx, values, positionals) {
      const given = namedPositionals(positionals, ['server'], POSITIONAL_HINTS);
      const limits = limitsOf(values);
      if (Object.keys(limits).length === 0) throw new UsageError('give at least one of --timeout-ms, --max-response-bytes, --max-concurrent');
      const org = await organizationOf(ctx, values);
      const server = await serverOf(ctx, org, given.server);
      await asOperator(ctx, org, (operation) => setGatewayLimits(operation, server, limits));
      ctx.out(`${server.slug}: ${limitsText({ ...server, ...limits })}.`);
    },
  },
};
