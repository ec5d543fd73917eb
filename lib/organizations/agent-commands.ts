// What a person may do to an organization's agents, once: validation, authorization-independent rules, the change
// and its audit event. The console's actions and the REST API are thin callers of these commands, so both answer
// the same way. The caller has already checked the person's `agents.manage` permission in the organization.
import { AGENT_ID } from '../util/agent-id';
import { z } from 'zod';
import { localized, textIn, type LocalizedText } from '../i18n/catalogs';
import { postgresErrorCode, type Queryable } from '../db/client';
import { findGrantableApp } from '../clients/apps';
import { SCOPE_TOKEN } from '../clients/permission-catalog';
import type { AuditRecord } from '../audit/events';
import { findMembershipRole } from './memberships';
import { findOrganizationBySlug } from './organizations';
import { can } from './permissions';
import { findUserById, type User } from '../accounts/users';
import { agents } from '../db/schema';
import { refuseUnlessOffered } from '../clients/permission-catalog';
import {
  allowAgentUser,
  createAgent,
  createConnection,
  deleteAgent,
  deleteConnection,
  disallowAgentUser,
  findOrgAgent,
  grantAgentScope,
  moveAgent,
  renameAgent,
  revokeAgentScope,
  type Agent,
} from './agents';
import { commandRefusal } from './refusal-codes';
import { isAnsweredFor, setAgentDisabled, suspendAgentsNobodyAnswersFor } from './agent-lifecycle';
import { addAgentKey, listAgentKeys, MAX_AGENT_KEYS, readPublicKey, removeAgentKey, setAgentJwksUri, type KeyRefusal } from './agent-keys';
import {
  agentNamesOf,
  createTrustRule,
  deleteTrustRule,
  evaluateWorkloadToken,
  expandRuleFields,
  TRUST_RULE_FRAGMENTS,
  type TrustRuleForm,
  type TrustRuleWords,
  type WorkloadTokenContext,
} from './workload-trust';
import { Refusal } from '../refusals/refusal';
import { teams } from '../db/schema';
import { and, eq } from 'drizzle-orm';

export interface AgentCommandContext {
  tx: Queryable;
  org: { id: string; slug: string; name: string };
  /**
   * Who acts (their id is all a command keeps of them: ownership, who made a key or a rule); null for a door with an
   * authority of its own (the CLI's operator), which creates and moves no agent.
   */
  person: Pick<User, 'id'> | null;
  /** Records the command's one audit event in the organization, as the person. */
  audit(record: Omit<AuditRecord, 'orgId' | 'actor'>): Promise<void>;
}

/**
 * The words of the inputs' refusals. REST and MCP put each after its field's name ("name: is required"): the
 * fragments below, in English. The console builds the same inputs with whole sentences in the person's language.
 */
export interface AgentInputWords {
  agentId: string;
  nameRequired: string;
  nameLength: string;
  scope: string;
  /** The scope schema inside a connection's narrowing (`narrowedTo`). */
  narrowedScope: string;
  appId: string;
  targetOrg: string;
  member: string;
  delegate: string;
  mode: string;
  connectionId: string;
  publicKey: string;
  keyId: string;
  jwksUri: string;
  team: string;
  ruleId: string;
  token: string;
}

export const AGENT_INPUT_FRAGMENTS: AgentInputWords = {
  agentId: 'is not an agent',
  nameRequired: 'is required',
  nameLength: 'must be at most 80 characters',
  scope: 'must be 1-64 letters, digits or : . _ -',
  narrowedScope: 'must be 1-64 letters, digits or : . _ -',
  appId: 'choose an app',
  targetOrg: 'choose an organization',
  member: 'choose a member',
  delegate: 'choose the person it acts for',
  mode: 'choose a mode: "own" (the agent acts as itself) or "delegated" (it acts for one person)',
  connectionId: 'is not a connection',
  publicKey: 'paste a public key: a JWK (JSON) or a PEM "PUBLIC KEY" block',
  keyId: 'is not a key of this agent',
  jwksUri: 'must be an https URL (empty to remove it)',
  team: 'choose a team of the organization',
  ruleId: 'is not a trust rule',
  token: 'paste the workload’s token (a JWT)',
};

/** What the workload doors need: Portico's issuer (the audience a rule without its own accepts) and the outbound guard. */
export type WorkloadDeps = Pick<WorkloadTokenContext, 'issuer' | 'outbound'>;

const agentIdOf = (message: string) => z.string().regex(AGENT_ID, message);
export const agentIdSchema = agentIdOf(AGENT_INPUT_FRAGMENTS.agentId);

/** The commands' inputs, their refusals in `words`. */
export function agentInputs(words: AgentInputWords) {
  const agentId = agentIdOf(words.agentId);
  const name = z.string().trim().min(1, words.nameRequired).max(80, words.nameLength);
  const scope = z.string().trim().regex(SCOPE_TOKEN, words.scope);
  const appId = z.string().uuid(words.appId);
  return {
    create: z.object({ name }),
    rename: z.object({ agentId, name }),
    setDisabled: z.object({ agentId, disabled: z.boolean() }),
    remove: z.object({ agentId }),
    move: z.object({ agentId, targetOrg: z.string().min(1, words.targetOrg) }),
    allowUser: z.object({ agentId, userId: z.string().uuid(words.member) }),
    disallowUser: z.object({ agentId, userId: z.string().uuid(words.member) }),
    grant: z.object({ agentId, appId, scope }),
    revokeGrant: z.object({ agentId, appId, scope }),
    /** No default mode: a connection without an explicit one fails here, and the schema's CHECK forbids a mix. */
    connect: z.discriminatedUnion(
      'mode',
      [
        z.object({ agentId, appId, mode: z.literal('own') }).strict(),
        z
          .object({
            agentId,
            appId,
            mode: z.literal('delegated'),
            delegateUserId: z.string().uuid(words.delegate),
            /** The subset of the person's permissions the connection may use; absent for all of them. */
            narrowedTo: z.array(z.string().trim().regex(SCOPE_TOKEN, words.narrowedScope)).max(100).optional(),
          })
          .strict(),
      ],
      { error: words.mode },
    ),
    disconnect: z.object({ agentId, connectionId: z.string().uuid(words.connectionId) }),
    addKey: z.object({ agentId, publicKey: z.string().max(10_000, words.publicKey), alg: z.string().max(10).optional() }),
    removeKey: z.object({ agentId, keyId: z.string().uuid(words.keyId) }),
    setJwksUri: z.object({ agentId, jwksUri: z.string().max(500, words.jwksUri) }),
    setSponsor: z.object({ agentId, teamId: z.union([z.literal(''), z.string().uuid(words.team)]) }),
    removeTrustRule: z.object({ ruleId: z.string().uuid(words.ruleId) }),
    testToken: z.object({ token: z.string().trim().min(1, words.token).max(16_384, words.token) }),
  } as const;
}

export const AGENT_INPUTS = agentInputs(AGENT_INPUT_FRAGMENTS);

/** What a command did, in English (`message`: REST, MCP) and as catalog words (`text`: the console). */
function done(text: LocalizedText): { message: string; text: LocalizedText } {
  return { message: textIn(text), text };
}

type Input<K extends keyof typeof AGENT_INPUTS> = z.infer<(typeof AGENT_INPUTS)[K]>;

/** A key that cannot be registered, next to its field (the algorithm's, when one was named and is the problem). */
function keyRefusal(refusal: KeyRefusal, algNamed: boolean): Refusal {
  return new Refusal({ domain: 'command', status: 400, code: 'invalid_request', text: localized(`refusals.agents.key.${refusal}`), field: refusal === 'alg' && algNamed ? 'alg' : 'publicKey' });
}

/** The person a command that makes an agent someone's needs (creating, moving): a person's door only. */
function personOf(ctx: AgentCommandContext): Pick<User, 'id'> {
  if (!ctx.person) throw commandRefusal(400, 'only a person can own an agent: create or move it in the console or over REST');
  return ctx.person;
}

async function agentOf(ctx: AgentCommandContext, id: string): Promise<Agent> {
  const agent = await findOrgAgent(ctx.tx, ctx.org.id, id);
  if (!agent) throw commandRefusal(404, localized('refusals.agents.notInOrg'));
  return agent;
}

async function memberOf(ctx: AgentCommandContext, userId: string): Promise<User> {
  const user = (await findMembershipRole(ctx.tx, ctx.org.id, userId)) ? await findUserById(ctx.tx, userId) : undefined;
  if (!user) throw commandRefusal(400, localized('refusals.agents.membersOnly'));
  return user;
}

async function orgApp(ctx: AgentCommandContext, id: string) {
  const app = await findGrantableApp(ctx.tx, ctx.org.id, id);
  if (!app) throw commandRefusal(404, localized('refusals.appNotInOrg'));
  return app;
}

const subject = (agent: Agent) => ({ type: 'agent', id: agent.id, label: agent.name });

export const agentCommands = {
  async create(ctx: AgentCommandContext, input: Input<'create'>) {
    const agent = await createAgent(ctx.tx, { orgId: ctx.org.id, name: input.name, ownerUserId: personOf(ctx).id });
    await ctx.audit({ action: 'agent.created', subject: subject(agent) });
    return { agent, ...done(localized('console.agents.done.created', { name: agent.name })) };
  },

  async rename(ctx: AgentCommandContext, input: Input<'rename'>) {
    const agent = await agentOf(ctx, input.agentId);
    await renameAgent(ctx.tx, agent.id, input.name);
    await ctx.audit({ action: 'agent.renamed', subject: { ...subject(agent), label: input.name }, details: { from: agent.name } });
    return done(localized('console.agents.done.renamed'));
  },

  /**
   * Disabling stops the agent everywhere (lib/organizations/agent-lifecycle.ts: tokens, grants, pending
   * confirmations and requests, a Shared Signals event to its apps); enabling turns it on again.
   */
  async setDisabled(ctx: AgentCommandContext, input: Input<'setDisabled'>) {
    const agent = await agentOf(ctx, input.agentId);
    // Turned on only while someone answers for it: its owner a member, or a sponsor team with a member.
    if (!input.disabled && !(await isAnsweredFor(ctx.tx, ctx.org.id, agent.id))) throw commandRefusal(409, localized('refusals.agents.nobodyAnswers', { name: agent.name }));
    const stopped = await setAgentDisabled(ctx.tx, agent.id, input.disabled);
    await ctx.audit({ action: input.disabled ? 'agent.disabled' : 'agent.enabled', subject: subject(agent), ...(stopped ? { details: { ...stopped } } : {}) });
    return { stopped, ...(input.disabled ? done(localized('console.agents.done.disabled', { name: agent.name })) : done(localized('console.agents.done.enabled', { name: agent.name }))) };
  },

  async remove(ctx: AgentCommandContext, input: Input<'remove'>) {
    const agent = await agentOf(ctx, input.agentId);
    await deleteAgent(ctx.tx, agent.id);
    await ctx.audit({ action: 'agent.deleted', subject: subject(agent) });
    return done(localized('console.agents.done.deleted', { name: agent.name }));
  },

  /** Moves the agent out, to another organization where the person also manages agents. */
  async move(ctx: AgentCommandContext, input: Input<'move'>, recordArrival: (orgId: string, record: Omit<AuditRecord, 'orgId' | 'actor'>) => Promise<void>) {
    const agent = await agentOf(ctx, input.agentId);
    const target = await findOrganizationBySlug(ctx.tx, input.targetOrg);
    const person = personOf(ctx);
    if (!target || target.id === ctx.org.id || !can(await findMembershipRole(ctx.tx, target.id, person.id), 'agents.manage')) {
      throw commandRefusal(400, localized('refusals.agents.moveTarget'));
    }
    await moveAgent(ctx.tx, agent.id, target.id, person.id).catch((error: unknown) => {
      // A consent naming the agent committed between the clean-up and the move: the composite key refuses the move.
      if (postgresErrorCode(error) === '23503') throw commandRefusal(409, localized('refusals.agents.moveRace'));
      throw error;
    });
    await ctx.audit({ action: 'agent.moved_out', subject: subject(agent), details: { to: target.slug } });
    // The receiving organization's trail shows the arrival too.
    await recordArrival(target.id, { action: 'agent.moved_in', subject: subject(agent), details: { from: ctx.org.slug } });
    return done(localized('console.agents.done.moved', { name: agent.name, target: target.name, org: ctx.org.name }));
  },

  async allowUser(ctx: AgentCommandContext, input: Input<'allowUser'>) {
    const agent = await agentOf(ctx, input.agentId);
    const user = await memberOf(ctx, input.userId);
    await allowAgentUser(ctx.tx, agent.id, user.id);
    await ctx.audit({ action: 'agent.user_added', subject: subject(agent), details: { userId: user.id, email: user.email } });
    return done(localized('console.agents.done.userAllowed', { email: user.email, name: agent.name }));
  },

  async disallowUser(ctx: AgentCommandContext, input: Input<'disallowUser'>) {
    const agent = await agentOf(ctx, input.agentId);
    await disallowAgentUser(ctx.tx, agent.id, input.userId);
    await ctx.audit({ action: 'agent.user_removed', subject: subject(agent), details: { userId: input.userId } });
    return done(localized('console.agents.done.userRemoved'));
  },

  async grant(ctx: AgentCommandContext, input: Input<'grant'>) {
    const agent = await agentOf(ctx, input.agentId);
    const app = await orgApp(ctx, input.appId);
    await refuseUnlessOffered(ctx.tx, app, input.scope);
    await grantAgentScope(ctx.tx, { agentId: agent.id, orgId: ctx.org.id, appId: app.id, scope: input.scope });
    await ctx.audit({ action: 'agent.scope_granted', subject: subject(agent), appId: app.id, details: { scope: input.scope } });
    return done(localized('console.agents.done.granted', { name: agent.name, scope: input.scope, app: app.name }));
  },

  async revokeGrant(ctx: AgentCommandContext, input: Input<'revokeGrant'>) {
    const agent = await agentOf(ctx, input.agentId);
    await revokeAgentScope(ctx.tx, { agentId: agent.id, appId: input.appId, scope: input.scope });
    await ctx.audit({ action: 'agent.scope_revoked', subject: subject(agent), appId: input.appId, details: { scope: input.scope } });
    return done(localized('console.agents.done.revoked', { scope: input.scope }));
  },

  async connect(ctx: AgentCommandContext, input: Input<'connect'>) {
    const agent = await agentOf(ctx, input.agentId);
    // An app's own MCP server, or a gateway server's app: a connection's token names either (resourceOfApp).
    const app = await findGrantableApp(ctx.tx, ctx.org.id, input.appId);
    if (!app) throw commandRefusal(404, localized('refusals.appNotInOrg'));
    if (input.mode === 'delegated') await memberOf(ctx, input.delegateUserId);
    if (input.mode === 'delegated') for (const narrowed of input.narrowedTo ?? []) await refuseUnlessOffered(ctx.tx, app, narrowed);
    const connection = await createConnection(ctx.tx, {
      agentId: agent.id,
      orgId: ctx.org.id,
      appId: app.id,
      createdByUserId: ctx.person?.id ?? null,
      connection: input.mode === 'own' ? { mode: 'own' } : { mode: 'delegated', delegateUserId: input.delegateUserId, narrowedTo: input.narrowedTo ?? null },
    }).catch((error: unknown) => {
      if (postgresErrorCode(error) === '23505') throw commandRefusal(409, localized('refusals.agents.connectedAlready', { name: agent.name, app: app.name }));
      throw error;
    });
    await ctx.audit({ action: 'agent.connection_created', subject: subject(agent), appId: app.id, details: { connectionId: connection.id, mode: connection.mode, delegateUserId: connection.delegateUserId, narrowedTo: connection.narrowedTo } });
    return { connection, ...done(localized('console.agents.done.connected', { name: agent.name, app: app.name, mode: connection.mode })) };
  },

  async disconnect(ctx: AgentCommandContext, input: Input<'disconnect'>) {
    const agent = await agentOf(ctx, input.agentId);
    if (!(await deleteConnection(ctx.tx, agent.id, input.connectionId))) throw commandRefusal(404, localized('refusals.agents.noConnection'));
    await ctx.audit({ action: 'agent.connection_deleted', subject: subject(agent), details: { connectionId: input.connectionId } });
    return done(localized('console.agents.done.disconnected'));
  },

  /** A public key for the agent's own client (private_key_jwt): only public keys; at most MAX_AGENT_KEYS at once. */
  async addKey(ctx: AgentCommandContext, input: Input<'addKey'>) {
    const agent = await agentOf(ctx, input.agentId);
    const read = await readPublicKey(input.publicKey, input.alg);
    if (!read.ok) throw keyRefusal(read.refusal, Boolean(input.alg));
    if ((await listAgentKeys(ctx.tx, agent.id)).length >= MAX_AGENT_KEYS) throw commandRefusal(409, localized('refusals.agents.tooManyKeys', { max: MAX_AGENT_KEYS }));
    const key = await addAgentKey(ctx.tx, { agentId: agent.id, orgId: ctx.org.id, jwk: read.jwk, createdByUserId: ctx.person?.id ?? null });
    if (!key) throw commandRefusal(409, localized('refusals.agents.keyExists', { kid: read.jwk.kid }));
    await ctx.audit({ action: 'agent.key_added', subject: subject(agent), details: { keyId: key.id, kid: key.kid, alg: key.alg } });
    return { key, ...done(localized('console.agents.done.keyAdded', { name: agent.name, kid: key.kid })) };
  },

  async removeKey(ctx: AgentCommandContext, input: Input<'removeKey'>) {
    const agent = await agentOf(ctx, input.agentId);
    const key = await removeAgentKey(ctx.tx, agent.id, input.keyId);
    if (!key) throw commandRefusal(404, localized('refusals.agents.noKey'));
    await ctx.audit({ action: 'agent.key_removed', subject: subject(agent), details: { keyId: key.id, kid: key.kid } });
    return done(localized('console.agents.done.keyRemoved', { kid: key.kid }));
  },

  /** Where the agent's platform publishes its public keys (fetched through the outbound guard); empty removes it. */
  async setJwksUri(ctx: AgentCommandContext, input: Input<'setJwksUri'>, deps: WorkloadDeps) {
    const agent = await agentOf(ctx, input.agentId);
    const raw = input.jwksUri.trim();
    const url = raw === '' ? null : URL.parse(raw);
    if (url !== null && (!url || !(url.protocol === 'https:' || (deps.outbound.allowLoopback && url.protocol === 'http:')) || url.username || url.password || url.hash)) {
      throw new Refusal({ domain: 'command', status: 400, code: 'invalid_request', text: localized('refusals.agents.jwksUri'), field: 'jwksUri' });
    }
    await setAgentJwksUri(ctx.tx, agent.id, url ? raw : null);
    await ctx.audit({ action: 'agent.jwks_uri_changed', subject: subject(agent), details: { jwksUri: url ? raw : null } });
    return done(url ? localized('console.agents.done.jwksUriSet', { name: agent.name }) : localized('console.agents.done.jwksUriCleared', { name: agent.name }));
  },

  /** The team that answers for the agent beside its owner ('' : none): while it has members, the agent outlives its owner's leaving. */
  async setSponsor(ctx: AgentCommandContext, input: Input<'setSponsor'>) {
    const agent = await agentOf(ctx, input.agentId);
    let team: { id: string; name: string } | undefined;
    if (input.teamId !== '') {
      [team] = await ctx.tx.select({ id: teams.id, name: teams.name }).from(teams).where(and(eq(teams.id, input.teamId), eq(teams.orgId, ctx.org.id))).limit(1);
      if (!team) throw new Refusal({ domain: 'command', status: 404, code: 'not_found', text: localized('refusals.agents.sponsorTeam'), field: 'teamId' });
    }
    await ctx.tx.update(agents).set({ sponsorTeamId: team?.id ?? null }).where(eq(agents.id, agent.id));
    // A sponsor cleared (or one without members) for an agent whose owner left: nobody answers for it, it stops.
    const suspended = await suspendAgentsNobodyAnswersFor(ctx.tx, ctx.org.id);
    await ctx.audit({ action: 'agent.sponsor_changed', subject: subject(agent), details: { teamId: team?.id ?? null, team: team?.name ?? null, agentsSuspended: suspended.map((row) => row.id) } });
    return done(team ? localized('console.agents.done.sponsorSet', { name: agent.name, team: team.name }) : localized('console.agents.done.sponsorCleared', { name: agent.name }));
  },

  /**
   * Trusts an external workload issuer's tokens for the agent when they match (lib/organizations/workload-trust.ts).
   * `words`: the form's refusals in the person's language (the console); English fragments elsewhere.
   */
  async addTrustRule(ctx: AgentCommandContext, input: { agentId: string } & TrustRuleForm, deps: WorkloadDeps, words: TrustRuleWords = TRUST_RULE_FRAGMENTS) {
    const agent = await agentOf(ctx, input.agentId);
    const expanded = expandRuleFields(input, words, deps.outbound.allowLoopback);
    if (!expanded.ok) throw new Refusal({ domain: 'command', status: 400, code: 'invalid_request', text: expanded.error.message, field: expanded.error.field });
    const rule = await createTrustRule(ctx.tx, { ...expanded.rule, orgId: ctx.org.id, agentId: agent.id, createdByUserId: ctx.person?.id ?? null });
    await ctx.audit({
      action: 'agent.trust_rule_added',
      subject: subject(agent),
      details: { ruleId: rule.id, name: rule.name, kind: rule.kind, issuer: rule.issuer, jwksUri: rule.jwksUri, audience: rule.audience, subject: rule.subject, claims: rule.claims },
    });
    return { rule, ...done(localized('console.agents.done.trustRuleAdded', { name: rule.name, agent: agent.name })) };
  },

  async removeTrustRule(ctx: AgentCommandContext, input: Input<'removeTrustRule'>) {
    const rule = await deleteTrustRule(ctx.tx, ctx.org.id, input.ruleId);
    if (!rule) throw commandRefusal(404, localized('refusals.agents.noTrustRule'));
    const agent = await findOrgAgent(ctx.tx, ctx.org.id, rule.agentId);
    await ctx.audit({ action: 'agent.trust_rule_removed', subject: { type: 'agent', id: rule.agentId, label: agent?.name }, details: { ruleId: rule.id, name: rule.name, issuer: rule.issuer } });
    return done(localized('console.agents.done.trustRuleRemoved', { name: rule.name }));
  },

  /**
   * "Test this token": which of the organization's rules would take a workload token, or why none would — rule by
   * rule — without using it up (its `jti` is not recorded) and without issuing anything. Read-only: no audit event.
   */
  async testToken(ctx: AgentCommandContext, input: Input<'testToken'>, deps: WorkloadDeps) {
    const evaluation = await evaluateWorkloadToken(ctx.tx, ctx.org.id, input.token, { ...deps, tokenEndpoint: `${deps.issuer}/oidc/token` });
    const names = await agentNamesOf(ctx.tx, evaluation.verdicts.map((verdict) => verdict.rule.agentId));
    return { evaluation, agentNames: names };
  },
};
