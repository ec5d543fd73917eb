// What a person may do to an organization's agents, once: validation, authorization-independent rules, the change
// and its audit event. The console's actions and the REST API are thin callers of these commands, so both answer
// the same way. The caller has already checked the person's `agents.manage` permission in the organization.
import { z } from 'zod';
import { localized, textIn, type LocalizedText } from '../i18n/catalogs';
import { postgresErrorCode, type Queryable } from '../db/client';
import { findGrantableApp, findOrgApp } from '../clients/apps';
import { SCOPE_TOKEN } from '../clients/permission-catalog';
import type { AuditRecord } from '../audit/events';
import { findMembershipRole } from './memberships';
import { findOrganizationBySlug } from './organizations';
import { can } from './permissions';
import { findUserById, type User } from '../accounts/users';
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
  setAgentDisabled,
  type Agent,
} from './agents';
import { commandRefusal } from './refusal-codes';

export interface AgentCommandContext {
  tx: Queryable;
  org: { id: string; slug: string; name: string };
  person: User;
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
};

const agentIdOf = (message: string) => z.string().regex(/^agt_[A-Za-z0-9_-]{16,64}$/, message);
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
  } as const;
}

export const AGENT_INPUTS = agentInputs(AGENT_INPUT_FRAGMENTS);

/** What a command did, in English (`message`: REST, MCP) and as catalog words (`text`: the console). */
function done(text: LocalizedText): { message: string; text: LocalizedText } {
  return { message: textIn(text), text };
}

type Input<K extends keyof typeof AGENT_INPUTS> = z.infer<(typeof AGENT_INPUTS)[K]>;

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
    const agent = await createAgent(ctx.tx, { orgId: ctx.org.id, name: input.name, ownerUserId: ctx.person.id });
    await ctx.audit({ action: 'agent.created', subject: subject(agent) });
    return { agent, ...done(localized('console.agents.done.created', { name: agent.name })) };
  },

  async rename(ctx: AgentCommandContext, input: Input<'rename'>) {
    const agent = await agentOf(ctx, input.agentId);
    await renameAgent(ctx.tx, agent.id, input.name);
    await ctx.audit({ action: 'agent.renamed', subject: { ...subject(agent), label: input.name }, details: { from: agent.name } });
    return done(localized('console.agents.done.renamed'));
  },

  async setDisabled(ctx: AgentCommandContext, input: Input<'setDisabled'>) {
    const agent = await agentOf(ctx, input.agentId);
    await setAgentDisabled(ctx.tx, agent.id, input.disabled);
    await ctx.audit({ action: input.disabled ? 'agent.disabled' : 'agent.enabled', subject: subject(agent) });
    return input.disabled ? done(localized('console.agents.done.disabled', { name: agent.name })) : done(localized('console.agents.done.enabled', { name: agent.name }));
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
    if (!target || target.id === ctx.org.id || !can(await findMembershipRole(ctx.tx, target.id, ctx.person.id), 'agents.manage')) {
      throw commandRefusal(400, localized('refusals.agents.moveTarget'));
    }
    await moveAgent(ctx.tx, agent.id, target.id, ctx.person.id).catch((error: unknown) => {
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
    // A connection's token is minted for the app's own resource (<origin>/api/mcp): an app that stands for a gateway
    // server has none, so agents reach a gateway server through a person's consent (act) only.
    const listing = await findOrgApp(ctx.tx, ctx.org.id, input.appId);
    if (!listing) throw commandRefusal(404, localized('refusals.appNotInOrg'));
    const app = listing.app;
    if (input.mode === 'delegated') await memberOf(ctx, input.delegateUserId);
    if (input.mode === 'delegated') for (const narrowed of input.narrowedTo ?? []) await refuseUnlessOffered(ctx.tx, app, narrowed);
    const connection = await createConnection(ctx.tx, {
      agentId: agent.id,
      orgId: ctx.org.id,
      appId: app.id,
      createdByUserId: ctx.person.id,
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
};
