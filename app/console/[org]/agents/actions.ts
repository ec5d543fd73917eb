'use server';
// The Agents page's actions: each one is a command of lib/accounts/agent-commands.ts inside the console's action
// client (authorization, one transaction, exactly one audit event).
import { z } from 'zod';
import { permissionChoice } from '../../_lib/permission-choice';
import { AGENT_INPUTS, agentCommands, type AgentCommandContext } from '@/lib/accounts/agent-commands';
import { CommandRefusal } from '@/lib/accounts/org-operation';
import { recordAuditEvent } from '@/lib/audit/events';
import { ActionRefusal, orgAction } from '../../_lib/action';

const confirmed = { confirmed: z.literal('yes', { error: 'confirm' }) };

/** Runs a command, turning its refusals into the console's. */
async function run<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof CommandRefusal) throw new ActionRefusal(error.message);
    throw error;
  }
}

function commandContext({ tx, access, audit }: { tx: AgentCommandContext['tx']; access: { org: AgentCommandContext['org']; user: AgentCommandContext['person'] }; audit: AgentCommandContext['audit'] }): AgentCommandContext {
  return { tx, org: access.org, person: access.user, audit };
}

export const createAgentAction = orgAction({ permission: 'agents.manage', input: AGENT_INPUTS.create }, async (ctx) => {
  const { message } = await run(() => agentCommands.create(commandContext(ctx), ctx.input));
  return { status: 'ok', message };
});

export const renameAgentAction = orgAction({ permission: 'agents.manage', input: AGENT_INPUTS.rename }, async (ctx) => {
  const { message } = await run(() => agentCommands.rename(commandContext(ctx), ctx.input));
  return { status: 'ok', message };
});

export const setAgentDisabledAction = orgAction(
  { permission: 'agents.manage', input: z.object({ agentId: AGENT_INPUTS.remove.shape.agentId, disabled: z.enum(['yes', 'no']), ...confirmed }) },
  async (ctx) => {
    const { message } = await run(() => agentCommands.setDisabled(commandContext(ctx), { agentId: ctx.input.agentId, disabled: ctx.input.disabled === 'yes' }));
    return { status: 'ok', message };
  },
);

export const deleteAgentAction = orgAction({ permission: 'agents.manage', input: AGENT_INPUTS.remove.extend(confirmed) }, async (ctx) => {
  const { message } = await run(() => agentCommands.remove(commandContext(ctx), ctx.input));
  return { status: 'ok', message };
});

export const moveAgentAction = orgAction({ permission: 'agents.manage', input: AGENT_INPUTS.move.extend(confirmed) }, async (ctx) => {
  const { message } = await run(() =>
    agentCommands.move(commandContext(ctx), ctx.input, (orgId, record) =>
      recordAuditEvent(ctx.tx, { ...record, orgId, actor: { type: 'person', id: ctx.access.user.id, label: ctx.access.user.email } }),
    ),
  );
  return { status: 'ok', message };
});

export const allowAgentUserAction = orgAction({ permission: 'agents.manage', input: AGENT_INPUTS.allowUser }, async (ctx) => {
  const { message } = await run(() => agentCommands.allowUser(commandContext(ctx), ctx.input));
  return { status: 'ok', message };
});

export const disallowAgentUserAction = orgAction({ permission: 'agents.manage', input: AGENT_INPUTS.disallowUser.extend(confirmed) }, async (ctx) => {
  const { message } = await run(() => agentCommands.disallowUser(commandContext(ctx), ctx.input));
  return { status: 'ok', message };
});

export const grantAgentScopeAction = orgAction({ permission: 'agents.manage', input: z.object({ agentId: AGENT_INPUTS.grant.shape.agentId, permission: permissionChoice }) }, async (ctx) => {
  const { message } = await run(() => agentCommands.grant(commandContext(ctx), { agentId: ctx.input.agentId, ...ctx.input.permission }));
  return { status: 'ok', message };
});

export const revokeAgentScopeAction = orgAction({ permission: 'agents.manage', input: AGENT_INPUTS.revokeGrant.extend(confirmed) }, async (ctx) => {
  const { message } = await run(() => agentCommands.revokeGrant(commandContext(ctx), ctx.input));
  return { status: 'ok', message };
});

/**
 * The form posts its organization and, in own mode, an empty person and no narrowing: the strict connection schema
 * (which refuses a person in own mode) sees only the connection's own fields. The narrowing picker posts
 * `<app id> <scope>` values; those of the app being connected become the connection's subset, and a permission of
 * another app is kept as it is, for the schema to refuse.
 */
const connectForm = z.preprocess((raw) => {
  const { org: _org, ...form } = raw as Record<string, unknown>;
  if (form.mode !== 'delegated') {
    delete form.delegateUserId;
    delete form.narrowedTo;
  } else if (form.narrowedTo !== undefined) {
    const chosen = (Array.isArray(form.narrowedTo) ? form.narrowedTo : [form.narrowedTo]).map(String);
    form.narrowedTo = chosen.map((value) => {
      const parsed = permissionChoice.safeParse(value);
      return parsed.success && parsed.data.appId === form.appId ? parsed.data.scope : value;
    });
  }
  return form;
}, AGENT_INPUTS.connect);

export const createConnectionAction = orgAction({ permission: 'agents.manage', input: connectForm }, async (ctx) => {
  const { message } = await run(() => agentCommands.connect(commandContext(ctx), ctx.input));
  return { status: 'ok', message };
});

export const deleteConnectionAction = orgAction({ permission: 'agents.manage', input: AGENT_INPUTS.disconnect.extend(confirmed) }, async (ctx) => {
  const { message } = await run(() => agentCommands.disconnect(commandContext(ctx), ctx.input));
  return { status: 'ok', message };
});
