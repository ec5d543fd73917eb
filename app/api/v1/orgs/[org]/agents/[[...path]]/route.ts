// REST for an organization's agents, the same commands as the console's Agents page (lib/organizations/agent-commands.ts):
//   GET    /agents                              list
//   POST   /agents                              {"name"}
//   PATCH  /agents/<id>                         {"name"?, "disabled"?}
//   DELETE /agents/<id>
//   POST   /agents/<id>/move                    {"target_org"}
//   POST   /agents/<id>/users                   {"user_id"}          DELETE /agents/<id>/users/<user id>
//   POST   /agents/<id>/grants                  {"app_id", "scope"}  (confirmed: 428, then again with _confirmation_token)
//   DELETE /agents/<id>/grants                  {"app_id", "scope"}
//   POST   /agents/<id>/connections             {"app_id", "mode": "own" | "delegated", "delegate_user_id"?, "narrowed_to"?: [scope]}
//   DELETE /agents/<id>/connections/<connection id>
import type { z } from 'zod';
import { AGENT_INPUTS, agentCommands, type AgentCommandContext } from '@/lib/organizations/agent-commands';
import { listAgents } from '@/lib/organizations/agents';
import { recordAuditEvent } from '@/lib/audit/events';
import { ApiError, orgRoute, type OrgRouteContext } from '../../../../_lib/rest';

export const dynamic = 'force-dynamic';

function parse<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApiError(400, 'invalid_request', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

function commandContext(ctx: OrgRouteContext): AgentCommandContext {
  return { tx: ctx.tx, org: ctx.org, person: ctx.caller.user, audit: ctx.audit };
}

/** The optional catch-all segments after /agents (Next gives an array, or nothing). */
function path(ctx: OrgRouteContext): string[] {
  const segments = ctx.params.path;
  return Array.isArray(segments) ? segments.map(String) : [];
}

export const GET = orgRoute('agents.manage', async (ctx) => {
  if (path(ctx).length > 0) throw new ApiError(404, 'not_found', 'no such resource');
  const agents = await listAgents(ctx.tx, ctx.org.id);
  return Response.json({
    agents: agents.map(({ agent, ownerEmail, users, grants, connections }) => ({
      id: agent.id,
      name: agent.name,
      owner: ownerEmail,
      owner_id: agent.ownerUserId,
      disabled: agent.disabledAt !== null,
      users: users.map((user) => ({ user_id: user.userId, email: user.email })),
      grants: grants.map((grant) => ({ app_id: grant.appId, scope: grant.scope })),
      connections: connections.map((connection) => ({ id: connection.id, app_id: connection.appId, mode: connection.mode, delegate: connection.delegateEmail })),
    })),
  });
});

export const POST = orgRoute('agents.manage', async (ctx) => {
  const [agentId, sub, ...rest] = path(ctx);
  if (rest.length > 0) throw new ApiError(404, 'not_found', 'no such resource');
  const body = await ctx.body();
  const command = commandContext(ctx);
  if (!agentId) {
    const { agent } = await agentCommands.create(command, parse(AGENT_INPUTS.create, { name: body.name }));
    return Response.json({ id: agent.id, name: agent.name }, { status: 201 });
  }
  switch (sub) {
    case 'move': {
      const result = await agentCommands.move(command, parse(AGENT_INPUTS.move, { agentId, targetOrg: body.target_org }), (orgId, record) =>
        recordAuditEvent(ctx.tx, { ...record, orgId, actor: { type: 'person', id: ctx.caller.user.id, label: ctx.caller.user.email }, act: ctx.caller.agentId ?? null }),
      );
      return Response.json({ moved: true, message: result.message });
    }
    case 'users':
      await agentCommands.allowUser(command, parse(AGENT_INPUTS.allowUser, { agentId, userId: body.user_id }));
      return Response.json({ allowed: true }, { status: 201 });
    case 'grants':
      await agentCommands.grant(command, parse(AGENT_INPUTS.grant, { agentId, appId: body.app_id, scope: body.scope }));
      return Response.json({ granted: true }, { status: 201 });
    case 'connections': {
      // Snake case on the wire; the strict schema refuses anything else, so a person cannot ride along in own mode.
      const { app_id: appId, mode, delegate_user_id: delegateUserId, narrowed_to: narrowedTo, ...unknown } = body;
      if (Object.keys(unknown).length > 0) throw new ApiError(400, 'invalid_request', `unknown fields: ${Object.keys(unknown).join(', ')}`);
      const input = parse(AGENT_INPUTS.connect, { agentId, appId, mode, ...(delegateUserId !== undefined ? { delegateUserId } : {}), ...(narrowedTo !== undefined ? { narrowedTo } : {}) });
      const { connection } = await agentCommands.connect(command, input);
      return Response.json({ id: connection.id, app_id: connection.appId, mode: connection.mode, delegate_user_id: connection.delegateUserId, narrowed_to: connection.narrowedTo }, { status: 201 });
    }
    default:
      throw new ApiError(404, 'not_found', 'no such resource');
  }
}, {
  // Granting a scope is what the agents.grant tool does: the same confirmation gate (428, then retry with the token).
  confirm: (params) => {
    const segments = Array.isArray(params.path) ? params.path.map(String) : [];
    if (segments.length !== 2 || segments[1] !== 'grants') return undefined;
    return { tool: 'agents.grant', args: (routeParams, body) => ({ org: String(routeParams.org), agent: segments[0], app: body.app_id, scope: body.scope }) };
  },
});

export const PATCH = orgRoute('agents.manage', async (ctx) => {
  const [agentId, ...rest] = path(ctx);
  if (!agentId || rest.length > 0) throw new ApiError(404, 'not_found', 'no such resource');
  const body = await ctx.body();
  const command = commandContext(ctx);
  if (body.name === undefined && body.disabled === undefined) throw new ApiError(400, 'invalid_request', 'send "name" or "disabled"');
  // Two changes are two commands, each with its audit event, in the one transaction.
  if (body.name !== undefined) await agentCommands.rename(command, parse(AGENT_INPUTS.rename, { agentId, name: body.name }));
  if (body.disabled !== undefined) await agentCommands.setDisabled(command, parse(AGENT_INPUTS.setDisabled, { agentId, disabled: body.disabled }));
  return Response.json({ updated: true });
});

export const DELETE = orgRoute('agents.manage', async (ctx) => {
  const [agentId, sub, id, ...rest] = path(ctx);
  if (!agentId || rest.length > 0) throw new ApiError(404, 'not_found', 'no such resource');
  const command = commandContext(ctx);
  if (!sub) await agentCommands.remove(command, parse(AGENT_INPUTS.remove, { agentId }));
  else if (sub === 'users' && id) await agentCommands.disallowUser(command, parse(AGENT_INPUTS.disallowUser, { agentId, userId: id }));
  else if (sub === 'connections' && id) await agentCommands.disconnect(command, parse(AGENT_INPUTS.disconnect, { agentId, connectionId: id }));
  else if (sub === 'grants' && !id) {
    const body = await ctx.body();
    await agentCommands.revokeGrant(command, parse(AGENT_INPUTS.revokeGrant, { agentId, appId: body.app_id, scope: body.scope }));
  } else throw new ApiError(404, 'not_found', 'no such resource');
  return Response.json({ deleted: true });
});
