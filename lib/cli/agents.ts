// `npm run portico -- agents …`: an organization's agents from the server machine, with the CLI's local authority
// (its events are operator_cli's): turning one off (which stops it everywhere) and on, the public keys of its own
// client, its JWKS URL and sponsor team, and the workload trust rules through which external workloads (Kubernetes,
// SPIFFE, CI) obtain its tokens — the same commands as the console's Agents page and the REST API
// (lib/organizations/agent-commands.ts). Keys, key sets and tokens are read on the operator's side (a file they
// name, or the CLI's standard input: ./secret-input.ts), a token never from the command line. Everything that came
// from outside (agents' and rules' names, issuers, claims, a token's subject) goes through terminalText.
import type { z } from 'zod';
import { env } from '../env';
import { deliveryPolicy } from '../http/outbound';
import { AGENT_INPUT_FRAGMENTS, AGENT_INPUTS, agentCommands, agentIdSchema, type AgentCommandContext, type WorkloadDeps } from '../organizations/agent-commands';
import { listAgentKeys } from '../organizations/agent-keys';
import { findOrgAgent, listAgents, type Agent } from '../organizations/agents';
import type { OrgOperationContext } from '../organizations/org-operation';
import type { Organization } from '../organizations/organizations';
import { listTeams } from '../organizations/teams';
import { listTrustRules, WORKLOAD_REFUSAL_TEXT, type RuleVerdict, type TrustRuleForm, type WorkloadTrustRule } from '../organizations/workload-trust';
import { terminalText } from '../util/visible-text';
import { CLI_PREFIX } from './catalog';
import { CommandError, namedPositionals, optionText, printList, requiredOptionText, UsageError, type CliContext, type Command } from './command';
import { asOperator, organizationOf } from './org-scope';
import type { SecretSource } from './secret-input';

type Values = Record<string, unknown>;

/** What the workload commands need: the issuer, and the installation's outbound policy (a test's own, when it gives one). */
const deps = (ctx: CliContext): WorkloadDeps => ({ issuer: ctx.issuer, outbound: ctx.outbound ?? deliveryPolicy(env()) });

/**
 * The CLI acts for no person: what a command records as created by a person (a key's, a rule's creator) is nobody
 * here, as for a row whose creator has left; the audit event is the operator's (operator_cli).
 */
function commandContext(operation: OrgOperationContext): AgentCommandContext {
  return { tx: operation.tx, org: operation.org, person: null, audit: operation.audit };
}

/** The commands' input schema, its refusal said with the argument's or option's name (a misuse: exit 2). */
function parsed<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = String(issue?.path[0] ?? '');
    throw new UsageError(`${ARGUMENT_NAMES[field] ?? field}: ${issue?.message ?? 'invalid'}`);
  }
  return result.data;
}

const ARGUMENT_NAMES: Record<string, string> = { agentId: '<agent id>', keyId: '<key id>', ruleId: '<rule id>', teamId: '<team>', jwksUri: '<url>', token: 'the token', publicKey: '--public-key-file', alg: '--alg' };

/** Options given that the sub-command does not take (they share one option list): a misuse, not silently ignored. */
function onlyOptions(values: Values, command: string, allowed: readonly string[]): void {
  const stray = Object.keys(values).filter((name) => values[name] !== undefined && name !== 'org' && !allowed.includes(name));
  if (stray.length > 0) throw new UsageError(`${command} does not take ${stray.map((name) => `--${name}`).join(', ')}`);
}

/** The organization's agent, named by its id (given as `argument`: a positional or an option). */
async function agentOf(ctx: CliContext, org: Organization, id: string, argument = '<agent id>'): Promise<Agent> {
  if (!agentIdSchema.safeParse(id.trim()).success) throw new UsageError(`${argument}: ${AGENT_INPUT_FRAGMENTS.agentId} (an agent’s id is agt_…; list them with: ${CLI_PREFIX} agents list --org <slug>)`);
  const agent = await findOrgAgent(ctx.db, org.id, id.trim());
  if (!agent) throw new CommandError(`${org.slug} has no agent "${terminalText(id)}". List them with: ${CLI_PREFIX} agents list --org ${org.slug}`);
  return agent;
}

const AGENT_HINT = { agent: 'name the agent (its id, agt_…, from agents list)' };

/**
 * A file the operator names, or their standard input (`-`), read on their side; what could not be read is said with
 * the option's name.
 */
async function readGiven(ctx: CliContext, option: string, source: SecretSource): Promise<string> {
  if (!ctx.readSecret) throw new CommandError(`This terminal cannot hand over ${option}: run the command with npm run portico.`);
  let value: string | undefined;
  try {
    value = await ctx.readSecret(source);
  } catch (error) {
    throw new CommandError(`${option}: ${terminalText(error instanceof Error ? error.message : String(error))}. Nothing was changed.`);
  }
  if (value === undefined) {
    throw new CommandError(
      source.from === 'file'
        ? `${option}: ${terminalText(source.path)} is empty. Nothing was changed.`
        : `${option}: nothing came on standard input. Pipe it in (… ${option} - < file), or name a file. Nothing was changed.`,
    );
  }
  return value;
}

const fileOrStdin = (given: string, prompt: string, whole: boolean): SecretSource => (given === '-' ? { from: 'stdin', prompt, ...(whole ? { whole: true } : {}) } : { from: 'file', path: given });

function stateOf(agent: Agent): string {
  if (!agent.disabledAt) return 'enabled';
  return agent.suspendedReason === 'owner_left' ? 'suspended' : 'disabled';
}

function agentSwitch(disabled: boolean): Command {
  return {
    async run(ctx, values, positionals) {
      const given = namedPositionals(positionals, ['agent'], AGENT_HINT);
      const org = await organizationOf(ctx, values);
      const agent = await agentOf(ctx, org, given.agent);
      const name = terminalText(agent.name);
      if (disabled && agent.disabledAt) {
        throw new CommandError(agent.suspendedReason === 'owner_left' ? `${name} is suspended already (its owner left ${org.slug} with no sponsor team): it is stopped.` : `${name} is disabled already.`);
      }
      if (!disabled && !agent.disabledAt) throw new CommandError(`${name} is enabled already.`);
      const done = await asOperator(ctx, org, (operation) => agentCommands.setDisabled(commandContext(operation), parsed(AGENT_INPUTS.setDisabled, { agentId: agent.id, disabled })));
      ctx.out(terminalText(done.message));
      if (disabled) ctx.out('Its grants ended, its pending confirmations and access requests were refused, and the apps it reaches were told (RISC account-disabled).');
    },
  };
}

/** What a rule takes: its subject and claims, as one line. */
function matchesText(rule: Pick<WorkloadTrustRule, 'subject' | 'claims'>): string {
  const parts = [...(rule.subject !== null ? [`sub=${rule.subject}`] : []), ...Object.entries(rule.claims).map(([path, value]) => `${path}=${value}`)];
  return terminalText(parts.join(', '));
}

function keysText(rule: Pick<WorkloadTrustRule, 'jwksUri' | 'jwks'>): string {
  return rule.jwksUri ? terminalText(rule.jwksUri) : `${rule.jwks?.keys.length ?? 0} key(s) given`;
}

/** One rule's verdict on a tested token, as a line. */
function verdictLine(verdict: RuleVerdict, agentNames: Map<string, string>): string {
  const rule = verdict.rule;
  const who = `rule ${rule.id}, agent ${terminalText(agentNames.get(rule.agentId) ?? '?')} ${rule.agentId}`;
  if (verdict.refusal === undefined) return `MATCHED      ${terminalText(rule.name)} (${who})`;
  const mismatch = verdict.mismatch;
  const why = mismatch
    ? `${terminalText(mismatch.claim)} is ${mismatch.actual === null ? 'absent' : `"${terminalText(mismatch.actual)}"`}; the rule wants "${terminalText(mismatch.expected)}"`
    : WORKLOAD_REFUSAL_TEXT[verdict.refusal];
  return `NOT MATCHED  ${terminalText(rule.name)} (${who}): ${why}`;
}

/** The options of `trust add` and the rule form's fields they fill. */
const RULE_OPTIONS = {
  'jwks-uri': 'jwksUri',
  audience: 'audience',
  namespace: 'namespace',
  'service-account': 'serviceAccount',
  'spiffe-id': 'spiffeId',
  repository: 'repository',
  ref: 'ref',
  subject: 'subject',
} as const satisfies Record<string, keyof TrustRuleForm>;

/** The rule form's fields by the CLI's names, for a refusal about one of them. */
const RULE_FIELD_NAMES: Record<string, string> = {
  name: '--name',
  kind: '--kind',
  issuer: '--issuer',
  jwksUri: '--jwks-uri',
  jwks: '--jwks-file',
  audience: '--audience',
  namespace: '--namespace',
  serviceAccount: '--service-account',
  spiffeId: '--spiffe-id',
  repository: '--repository',
  ref: '--ref',
  subject: '--subject',
  claims: '--claim',
  form: '--subject or --claim',
};

const TRUST_OPTIONS = {
  list: ['agent'],
  add: ['agent', 'name', 'kind', 'issuer', 'jwks-file', 'claim', ...Object.keys(RULE_OPTIONS)],
  remove: [],
  test: ['token-file'],
} as const;

export const AGENT_COMMANDS: Record<string, Command> = {
  list: {
    async run(ctx, values, positionals) {
      namedPositionals(positionals, []);
      const org = await organizationOf(ctx, values);
      const listings = await listAgents(ctx.db, org.id);
      if (listings.length === 0) ctx.out(`${org.slug} has no agents. People create them in the console (Agents) or over REST.`);
      const teams = new Map((await listTeams(ctx.db, org.id)).map((row) => [row.team.id, row.team.name]));
      printList(
        ctx,
        ['AGENT', 'NAME', 'OWNER', 'STATE', 'SPONSOR', 'LAST USED'],
        listings.map(({ agent, ownerEmail }) => [
          agent.id,
          terminalText(agent.name),
          terminalText(ownerEmail),
          stateOf(agent),
          agent.sponsorTeamId ? terminalText(teams.get(agent.sponsorTeamId) ?? agent.sponsorTeamId) : 'none',
          agent.lastUsedAt ? agent.lastUsedAt.toISOString() : 'never',
        ]),
      );
    },
  },
  disable: agentSwitch(true),
  enable: agentSwitch(false),
  keys: {
    async run(ctx, values, positionals) {
      const [action, ...rest] = positionals;
      if (action !== 'list' && action !== 'add' && action !== 'remove') throw new UsageError('say list, add or remove: agents keys add <agent id> --org <slug> --public-key-file <path>');
      onlyOptions(values, `keys ${action}`, action === 'add' ? ['public-key-file', 'alg'] : []);
      const given = namedPositionals(rest, action === 'remove' ? ['agent', 'key'] : ['agent'], { ...AGENT_HINT, key: 'name the key (its id, or its kid, from agents keys list)' });
      const org = await organizationOf(ctx, values);
      const agent = await agentOf(ctx, org, given.agent);
      const name = terminalText(agent.name);
      if (action === 'list') {
        const keys = await listAgentKeys(ctx.db, agent.id);
        if (keys.length === 0) ctx.out(`${name} has no keys. Add one with: ${CLI_PREFIX} agents keys add ${agent.id} --org ${org.slug} --public-key-file <path>`);
        printList(ctx, ['KEY', 'KID', 'ALG', 'ADDED'], keys.map((key) => [key.id, terminalText(key.kid), key.alg, key.createdAt.toISOString()]));
        if (agent.jwksUri) ctx.out(`${name} also takes the keys published at ${terminalText(agent.jwksUri)}.`);
        return;
      }
      if (action === 'add') {
        const file = requiredOptionText(values, 'public-key-file');
        const publicKey = await readGiven(ctx, '--public-key-file', fileOrStdin(file, 'The public key (a JWK, or a PEM "PUBLIC KEY" block)', true));
        const alg = optionText(values, 'alg');
        const input = parsed(AGENT_INPUTS.addKey, { agentId: agent.id, publicKey, ...(alg !== undefined ? { alg } : {}) });
        const { key } = await asOperator(ctx, org, (operation) => agentCommands.addKey(commandContext(operation), input));
        ctx.out(`Added to ${name}: kid ${terminalText(key.kid)}, ${key.alg} (key ${key.id}).`);
        ctx.out(`Its client (client_id ${agent.id}) authenticates with private_key_jwt signed by the private key, which stays with the workload.`);
        return;
      }
      // A key named by its id, or by its kid.
      const keys = await listAgentKeys(ctx.db, agent.id);
      const key = keys.find((row) => row.id === given.key) ?? keys.find((row) => row.kid === given.key);
      if (!key) throw new CommandError(`${name} has no key "${terminalText(given.key)}". List them with: ${CLI_PREFIX} agents keys list ${agent.id} --org ${org.slug}`);
      const done = await asOperator(ctx, org, (operation) => agentCommands.removeKey(commandContext(operation), parsed(AGENT_INPUTS.removeKey, { agentId: agent.id, keyId: key.id })));
      ctx.out(terminalText(done.message));
    },
    fields: { publicKey: '--public-key-file', alg: '--alg' },
  },
  'jwks-uri': {
    async run(ctx, values, positionals) {
      const [action, agentId, url, ...rest] = positionals;
      if (action !== 'set') throw new UsageError('say set: agents jwks-uri set <agent id> <https://…|""> --org <slug>');
      if (!agentId?.trim()) throw new UsageError(AGENT_HINT.agent);
      if (url === undefined) throw new UsageError('name the URL, or "" to remove it');
      if (rest.length > 0) throw new UsageError(`one agent, one URL: "${terminalText(rest[0])}" is one word too many`);
      const org = await organizationOf(ctx, values);
      const agent = await agentOf(ctx, org, agentId);
      const jwksUri = url.trim() === 'none' ? '' : url.trim();
      const done = await asOperator(ctx, org, (operation) => agentCommands.setJwksUri(commandContext(operation), parsed(AGENT_INPUTS.setJwksUri, { agentId: agent.id, jwksUri }), deps(ctx)));
      ctx.out(terminalText(done.message));
    },
    fields: { jwksUri: '<url>' },
  },
  sponsor: {
    async run(ctx, values, positionals) {
      const [action, ...rest] = positionals;
      if (action !== 'set') throw new UsageError('say set: agents sponsor set <agent id> <team id | team name | none> --org <slug>');
      const given = namedPositionals(rest, ['agent', 'team'], { ...AGENT_HINT, team: 'name the team (its id or its name), or none' });
      const org = await organizationOf(ctx, values);
      const agent = await agentOf(ctx, org, given.agent);
      let teamId = '';
      if (given.team.toLowerCase() !== 'none') {
        const teams = await listTeams(ctx.db, org.id);
        const team = teams.find((row) => row.team.id === given.team) ?? teams.find((row) => row.team.name.toLowerCase() === given.team.toLowerCase());
        if (!team) throw new CommandError(`${org.slug} has no team "${terminalText(given.team)}". Name it by its id or its name, or say none.`);
        teamId = team.team.id;
      }
      const done = await asOperator(ctx, org, (operation) => agentCommands.setSponsor(commandContext(operation), parsed(AGENT_INPUTS.setSponsor, { agentId: agent.id, teamId })));
      ctx.out(terminalText(done.message));
    },
    fields: { teamId: '<team>' },
  },
  trust: {
    async run(ctx, values, positionals) {
      const [action, ...rest] = positionals;
      if (action !== 'list' && action !== 'add' && action !== 'remove' && action !== 'test') {
        throw new UsageError('say list, add, remove or test: agents trust test --org <slug> --token-file <path>');
      }
      onlyOptions(values, `trust ${action}`, TRUST_OPTIONS[action]);
      if (action === 'list') {
        namedPositionals(rest, []);
        const org = await organizationOf(ctx, values);
        const agentId = optionText(values, 'agent');
        const agent = agentId !== undefined ? await agentOf(ctx, org, agentId, '--agent') : undefined;
        const rules = await listTrustRules(ctx.db, org.id, agent?.id);
        if (rules.length === 0) ctx.out(`${agent ? terminalText(agent.name) : org.slug} has no workload trust rules.`);
        printList(
          ctx,
          ['RULE', 'AGENT', 'NAME', 'KIND', 'ISSUER', 'KEYS', 'AUDIENCE', 'MATCHES'],
          rules.map((rule) => [rule.id, rule.agentId, terminalText(rule.name), rule.kind, terminalText(rule.issuer), keysText(rule), rule.audience ? terminalText(rule.audience) : 'this Portico', matchesText(rule)]),
        );
        return;
      }
      if (action === 'remove') {
        const given = namedPositionals(rest, ['rule'], { rule: 'name the rule (its id, from agents trust list)' });
        const org = await organizationOf(ctx, values);
        const done = await asOperator(ctx, org, (operation) => agentCommands.removeTrustRule(commandContext(operation), parsed(AGENT_INPUTS.removeTrustRule, { ruleId: given.rule })));
        ctx.out(terminalText(done.message));
        return;
      }
      if (action === 'test') {
        namedPositionals(rest, []);
        const org = await organizationOf(ctx, values);
        const file = optionText(values, 'token-file') ?? '-';
        const token = await readGiven(ctx, '--token-file', fileOrStdin(file, 'The workload token (a JWT)', false));
        const input = parsed(AGENT_INPUTS.testToken, { token });
        // Read-only, outside any transaction (an issuer's keys may be fetched): it records nothing, not even the token's use.
        const readOnly: AgentCommandContext = {
          tx: ctx.db,
          org,
          person: null,
          audit: () => Promise.reject(new Error('testing a token records nothing')),
        };
        const { evaluation, agentNames } = await agentCommands.testToken(readOnly, input, deps(ctx));
        const payload = evaluation.payload;
        if (payload) ctx.out(`Token of ${terminalText(payload.iss ?? '(no issuer)')} for ${terminalText(payload.sub ?? '(no subject)')}, signature verified.`);
        for (const verdict of evaluation.verdicts) ctx.out(verdictLine(verdict, agentNames));
        if (!evaluation.ok) throw new CommandError(`No rule takes this token: ${WORKLOAD_REFUSAL_TEXT[evaluation.refusal]}.`);
        ctx.out(
          `The token would be exchanged for a token of ${terminalText(agentNames.get(evaluation.agentId) ?? '?')} (${evaluation.agentId}) by the rule ${terminalText(evaluation.rule.name)}. Nothing was used up: testing records nothing.`,
        );
        return;
      }
      // add
      namedPositionals(rest, []);
      const org = await organizationOf(ctx, values);
      const agent = await agentOf(ctx, org, requiredOptionText(values, 'agent'), '--agent');
      const form: { agentId: string } & TrustRuleForm = { agentId: agent.id, name: requiredOptionText(values, 'name'), kind: requiredOptionText(values, 'kind'), issuer: requiredOptionText(values, 'issuer') };
      for (const [option, field] of Object.entries(RULE_OPTIONS)) {
        const value = optionText(values, option);
        if (value !== undefined) form[field] = value;
      }
      const jwksFile = optionText(values, 'jwks-file');
      if (jwksFile !== undefined && form.jwksUri !== undefined) throw new UsageError('--jwks-uri or --jwks-file, not both');
      if (jwksFile === undefined && form.jwksUri === undefined) throw new UsageError('give the issuer’s keys: --jwks-uri <url> or --jwks-file <path>');
      const claims = values.claim === undefined ? [] : (Array.isArray(values.claim) ? values.claim : [values.claim]).map(String);
      for (const claim of claims) {
        if (!/^[^=\n]+=[^\n]+$/.test(claim)) throw new UsageError(`--claim takes path=value on one line, not "${terminalText(claim)}"`);
      }
      if (claims.length > 0) form.claims = claims.join('\n');
      if (jwksFile !== undefined) form.jwks = await readGiven(ctx, '--jwks-file', fileOrStdin(jwksFile, 'The issuer’s public keys (a JWKS)', true));
      const { rule } = await asOperator(ctx, org, (operation) => agentCommands.addTrustRule(commandContext(operation), form, deps(ctx)));
      ctx.out(`Added the trust rule ${terminalText(rule.name)} (${rule.id}) for ${terminalText(agent.name)} (${agent.id}):`);
      ctx.out(`  issuer    ${terminalText(rule.issuer)}`);
      ctx.out(`  keys      ${keysText(rule)}`);
      ctx.out(`  audience  ${rule.audience ? terminalText(rule.audience) : `${ctx.issuer} (or its token endpoint)`}`);
      ctx.out(`  matches   ${matchesText(rule)}`);
      ctx.out(`Check a workload’s token against it with: ${CLI_PREFIX} agents trust test --org ${org.slug} --token-file <path>`);
    },
    fields: RULE_FIELD_NAMES,
  },
};
