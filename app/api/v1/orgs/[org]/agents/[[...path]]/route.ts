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
// Workload agents (issue 59): the keys of the agent's own client, its JWKS URL and sponsor team, and the trust rules
// through which external workload tokens obtain its tokens:
//   GET    /agents/<id>/keys                           POST {"public_key": PEM | JWK (object or JSON text), "alg"?}
//   DELETE /agents/<id>/keys/<key id>
//   PUT    /agents/<id>/jwks-uri                       {"jwks_uri"}   ("" or null removes it)
//   PUT    /agents/<id>/sponsor                        {"team_id"}    (null removes it)
//   GET    /agents/trust-rules, /agents/<id>/trust-rules
//   POST   /agents/<id>/trust-rules                    {"name", "kind", "issuer", "jwks_uri" | "jwks", "audience"?, "namespace"?,
//                                                       "service_account"?, "spiffe_id"?, "repository"?, "ref"?, "subject"?, "claims"?: {path: value}}
//   DELETE /agents/trust-rules/<rule id>, /agents/<id>/trust-rules/<rule id>
//   POST   /agents/test-token, /agents/<id>/test-token {"token"} → which rule would take it, or why none, rule by rule
import type { z } from 'zod';
import { AGENT_INPUT_FRAGMENTS, AGENT_INPUTS, agentCommands, type AgentCommandContext } from '@/lib/organizations/agent-commands';
import { listAgentKeys, type AgentKey } from '@/lib/organizations/agent-keys';
import { findOrgAgent, listAgents, type Agent } from '@/lib/organizations/agents';
import { commandRefusal } from '@/lib/organizations/refusal-codes';
import { workloadDoorDeps } from '@/lib/organizations/workload-doors';
import { listTrustRules, TRUST_RULE_FRAGMENTS, WORKLOAD_REFUSAL_TEXT, type TrustRuleForm, type WorkloadEvaluation, type WorkloadTrustRule } from '@/lib/organizations/workload-trust';
import { localized } from '@/lib/i18n/catalogs';
import { recordAuditEvent } from '@/lib/audit/events';
import { ApiError, orgRoute, type OrgRouteContext } from '../../../../_lib/rest';

export const dynamic = 'force-dynamic';

function parse<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? '');
    // The workload fields by their wire names, and a missing or mistyped one in the words its refusal has.
    const name = Object.hasOwn(WIRE_NAMES, field) ? WIRE_NAMES[field] : issue?.path.join('.') || 'body';
    const words = issue?.code === 'invalid_type' && Object.hasOwn(TYPE_WORDS, field) ? TYPE_WORDS[field] : (issue?.message ?? 'invalid');
    throw new ApiError(400, 'invalid_request', `${name}: ${words}`);
  }
  return parsed.data;
}

const WIRE_NAMES: Record<string, string> = { publicKey: 'public_key', keyId: 'key_id', jwksUri: 'jwks_uri', teamId: 'team_id', ruleId: 'rule_id' };
const TYPE_WORDS: Record<string, string> = { publicKey: AGENT_INPUT_FRAGMENTS.publicKey, jwksUri: AGENT_INPUT_FRAGMENTS.jwksUri, teamId: AGENT_INPUT_FRAGMENTS.team, token: AGENT_INPUT_FRAGMENTS.token };

function commandContext(ctx: OrgRouteContext): AgentCommandContext {
  return { tx: ctx.tx, org: ctx.org, person: ctx.caller.user, audit: ctx.audit };
}

/** The optional catch-all segments after /agents (Next gives an array, or nothing). */
function path(ctx: OrgRouteContext): string[] {
  return segmentsOf(ctx.params);
}

function segmentsOf(params: OrgRouteContext['params']): string[] {
  return Array.isArray(params.path) ? params.path.map(String) : [];
}

/** The wire names of the fields the commands' refusals are about (a key, a URL, a team, a trust rule's fields). */
const FIELDS = {
  publicKey: 'public_key',
  jwksUri: 'jwks_uri',
  teamId: 'team_id',
  name: 'name',
  kind: 'kind',
  issuer: 'issuer',
  jwks: 'jwks',
  audience: 'audience',
  namespace: 'namespace',
  serviceAccount: 'service_account',
  spiffeId: 'spiffe_id',
  repository: 'repository',
  ref: 'ref',
  subject: 'subject',
  claims: 'claims',
  form: 'subject or claims',
} as const;

/** Fields the body may not carry: a typo (serviceAccount) is refused, not ignored. */
function refuseUnknown(body: Record<string, unknown>, known: readonly string[]): void {
  const unknown = Object.keys(body).filter((key) => !known.includes(key));
  if (unknown.length > 0) throw new ApiError(400, 'invalid_request', `unknown fields: ${unknown.join(', ')}`);
}

/** The organization's agent named in the path (its id's form first, as the commands check it). */
async function agentOf(ctx: OrgRouteContext, id: string): Promise<Agent> {
  const agentId = parse(AGENT_INPUTS.remove, { agentId: id }).agentId;
  const agent = await findOrgAgent(ctx.tx, ctx.org.id, agentId);
  if (!agent) throw commandRefusal(404, localized('refusals.agents.notInOrg'));
  return agent;
}

const keyJson = (key: AgentKey) => ({ id: key.id, kid: key.kid, alg: key.alg, public_jwk: key.publicJwk, created_at: key.createdAt.toISOString() });

const ruleJson = (rule: WorkloadTrustRule) => ({
  id: rule.id,
  agent_id: rule.agentId,
  name: rule.name,
  kind: rule.kind,
  issuer: rule.issuer,
  jwks_uri: rule.jwksUri,
  jwks: rule.jwks,
  audience: rule.audience,
  subject: rule.subject,
  claims: rule.claims,
  created_at: rule.createdAt.toISOString(),
});

/** The snake-case fields of a trust rule's body that are text, and the form's names for them. */
const RULE_TEXT_FIELDS = {
  name: 'name',
  kind: 'kind',
  issuer: 'issuer',
  jwks_uri: 'jwksUri',
  audience: 'audience',
  namespace: 'namespace',
  service_account: 'serviceAccount',
  spiffe_id: 'spiffeId',
  repository: 'repository',
  ref: 'ref',
  subject: 'subject',
} as const satisfies Record<string, keyof TrustRuleForm>;

/** A trust rule's body as the rule form: text fields as they are, the JWKS as JSON text, the claims as path=value lines. */
function trustRuleForm(body: Record<string, unknown>): TrustRuleForm {
  refuseUnknown(body, [...Object.keys(RULE_TEXT_FIELDS), 'jwks', 'claims']);
  const form: TrustRuleForm = { name: '', kind: '', issuer: '' };
  for (const [key, field] of Object.entries(RULE_TEXT_FIELDS)) {
    const value = body[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw new ApiError(400, 'invalid_request', `${key}: must be a string`);
    form[field] = value;
  }
  const jwks = body.jwks;
  if (typeof jwks === 'string') form.jwks = jwks;
  else if (jwks !== null && typeof jwks === 'object' && !Array.isArray(jwks)) form.jwks = JSON.stringify(jwks);
  else if (jwks !== undefined && jwks !== null) throw new ApiError(400, 'invalid_request', `jwks: ${TRUST_RULE_FRAGMENTS.jwks}`);
  const claims = body.claims;
  if (claims !== undefined && claims !== null) {
    const entries = typeof claims === 'object' && !Array.isArray(claims) ? Object.entries(claims as Record<string, unknown>) : undefined;
    // One claim a line as path=value: a path with = or a line break, or a value with a line break, could not be read back.
    if (!entries || entries.some(([claim, value]) => typeof value !== 'string' || /[=\n]/.test(claim) || value.includes('\n'))) {
      throw new ApiError(400, 'invalid_request', 'claims: must be an object of claim paths and the exact values they must hold ({"path": "value"}), at most 10');
    }
    form.claims = entries.map(([claim, value]) => `${claim}=${String(value)}`).join('\n');
  }
  return form;
}

/** A token's evaluation on the wire: which rule took it (and so which agent), or why none did, rule by rule. */
function evaluationJson(evaluation: WorkloadEvaluation, agentNames: Map<string, string>) {
  const payload = evaluation.payload;
  return {
    matched: evaluation.ok,
    agent_id: evaluation.ok ? evaluation.agentId : null,
    agent_name: evaluation.ok ? (agentNames.get(evaluation.agentId) ?? null) : null,
    rule_id: evaluation.ok ? evaluation.rule.id : null,
    refusal: evaluation.ok ? null : evaluation.refusal,
    refusal_description: evaluation.ok ? null : WORKLOAD_REFUSAL_TEXT[evaluation.refusal],
    // What the token says of itself, once its signature verified with a rule's keys.
    issuer: typeof payload?.iss === 'string' ? payload.iss : null,
    subject: typeof payload?.sub === 'string' ? payload.sub : null,
    rules: evaluation.verdicts.map((verdict) => ({
      rule_id: verdict.rule.id,
      name: verdict.rule.name,
      agent_id: verdict.rule.agentId,
      agent_name: agentNames.get(verdict.rule.agentId) ?? null,
      verdict: verdict.refusal === undefined ? 'matched' : 'not_matched',
      refusal: verdict.refusal ?? null,
      refusal_description: verdict.refusal === undefined ? null : WORKLOAD_REFUSAL_TEXT[verdict.refusal],
      mismatch: verdict.mismatch ?? null,
    })),
  };
}

export const GET = orgRoute('agents.manage', async (ctx) => {
  const segments = path(ctx);
  if (segments.length === 1 && segments[0] === 'trust-rules') return Response.json({ trust_rules: (await listTrustRules(ctx.tx, ctx.org.id)).map(ruleJson) });
  if (segments.length === 2 && segments[1] === 'keys') {
    const agent = await agentOf(ctx, segments[0]!);
    return Response.json({ keys: (await listAgentKeys(ctx.tx, agent.id)).map(keyJson), jwks_uri: agent.jwksUri });
  }
  if (segments.length === 2 && segments[1] === 'trust-rules') {
    const agent = await agentOf(ctx, segments[0]!);
    return Response.json({ trust_rules: (await listTrustRules(ctx.tx, ctx.org.id, agent.id)).map(ruleJson) });
  }
  if (segments.length > 0) throw new ApiError(404, 'not_found', 'no such resource');
  const agents = await listAgents(ctx.tx, ctx.org.id);
  return Response.json({
    agents: agents.map(({ agent, ownerEmail, users, grants, connections }) => ({
      id: agent.id,
      name: agent.name,
      owner: ownerEmail,
      owner_id: agent.ownerUserId,
      disabled: agent.disabledAt !== null,
      // Disabled by nobody's decision: its owner left the organization with no sponsor team member left.
      suspended: agent.suspendedReason,
      sponsor_team_id: agent.sponsorTeamId,
      jwks_uri: agent.jwksUri,
      last_used_at: agent.lastUsedAt?.toISOString() ?? null,
      users: users.map((user) => ({ user_id: user.userId, email: user.email })),
      grants: grants.map((grant) => ({ app_id: grant.appId, scope: grant.scope })),
      connections: connections.map((connection) => ({ id: connection.id, app_id: connection.appId, mode: connection.mode, delegate: connection.delegateEmail })),
    })),
  });
});

const changes = orgRoute('agents.manage', async (ctx) => {
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
    case 'keys': {
      refuseUnknown(body, ['public_key', 'alg']);
      // A JWK may come as an object or as its JSON text; a PEM block as text.
      const publicKey = body.public_key !== null && typeof body.public_key === 'object' && !Array.isArray(body.public_key) ? JSON.stringify(body.public_key) : body.public_key;
      const { key } = await agentCommands.addKey(command, parse(AGENT_INPUTS.addKey, { agentId, publicKey, ...(body.alg !== undefined && body.alg !== null ? { alg: body.alg } : {}) }));
      return Response.json(keyJson(key), { status: 201 });
    }
    case 'trust-rules': {
      const form = trustRuleForm(body);
      const { rule } = await agentCommands.addTrustRule(command, { agentId: parse(AGENT_INPUTS.remove, { agentId }).agentId, ...form }, workloadDoorDeps());
      return Response.json(ruleJson(rule), { status: 201 });
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
  fields: FIELDS,
});

/**
 * "Test this token": which of the organization's rules would take it, as the token endpoint would decide, without
 * using it up or issuing anything; read-only. Outside any transaction: a rule's keys may be fetched from its issuer,
 * and the embedded database's one connection must not wait on that.
 */
const testToken = orgRoute(
  'agents.manage',
  async (ctx) => {
    const [first, second, ...rest] = path(ctx);
    if (rest.length > 0 || (second === undefined ? first !== 'test-token' : second !== 'test-token')) throw new ApiError(404, 'not_found', 'no such resource');
    // On an agent's path the agent must be one of the organization's; the organization's rules decide all the same.
    if (second !== undefined) await agentOf(ctx, first!);
    const body = await ctx.body();
    refuseUnknown(body, ['token']);
    const { evaluation, agentNames } = await agentCommands.testToken(commandContext(ctx), parse(AGENT_INPUTS.testToken, { token: body.token }), workloadDoorDeps());
    return Response.json(evaluationJson(evaluation, agentNames), { headers: { 'Cache-Control': 'no-store' } });
  },
  { transaction: false },
);

export async function POST(request: Request, route: { params: Promise<Record<string, string | string[] | undefined>> }): Promise<Response> {
  const params = await route.params;
  const handler = segmentsOf(params).at(-1) === 'test-token' ? testToken : changes;
  return handler(request, { params: Promise.resolve(params) });
}

export const PUT = orgRoute(
  'agents.manage',
  async (ctx) => {
    const [agentId, sub, ...rest] = path(ctx);
    if (!agentId || rest.length > 0) throw new ApiError(404, 'not_found', 'no such resource');
    const body = await ctx.body();
    const command = commandContext(ctx);
    if (sub === 'jwks-uri') {
      refuseUnknown(body, ['jwks_uri']);
      if (body.jwks_uri === undefined) throw new ApiError(400, 'invalid_request', 'jwks_uri: is required ("" or null removes it)');
      const result = await agentCommands.setJwksUri(command, parse(AGENT_INPUTS.setJwksUri, { agentId, jwksUri: body.jwks_uri ?? '' }), workloadDoorDeps());
      return Response.json({ updated: true, message: result.message });
    }
    if (sub === 'sponsor') {
      refuseUnknown(body, ['team_id']);
      if (body.team_id === undefined) throw new ApiError(400, 'invalid_request', 'team_id: is required (null removes the sponsor)');
      const result = await agentCommands.setSponsor(command, parse(AGENT_INPUTS.setSponsor, { agentId, teamId: body.team_id ?? '' }));
      return Response.json({ updated: true, message: result.message });
    }
    throw new ApiError(404, 'not_found', 'no such resource');
  },
  { fields: FIELDS },
);

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
  if (agentId === 'trust-rules' && sub && !id) await agentCommands.removeTrustRule(command, parse(AGENT_INPUTS.removeTrustRule, { ruleId: sub }));
  else if (sub === 'trust-rules' && id) {
    // On an agent's path, only that agent's rule.
    const agent = await agentOf(ctx, agentId);
    const { ruleId } = parse(AGENT_INPUTS.removeTrustRule, { ruleId: id });
    if (!(await listTrustRules(ctx.tx, ctx.org.id, agent.id)).some((rule) => rule.id === ruleId)) throw commandRefusal(404, localized('refusals.agents.noTrustRule'));
    await agentCommands.removeTrustRule(command, { ruleId });
  } else if (sub === 'keys' && id) await agentCommands.removeKey(command, parse(AGENT_INPUTS.removeKey, { agentId, keyId: id }));
  else if (!sub) await agentCommands.remove(command, parse(AGENT_INPUTS.remove, { agentId }));
  else if (sub === 'users' && id) await agentCommands.disallowUser(command, parse(AGENT_INPUTS.disallowUser, { agentId, userId: id }));
  else if (sub === 'connections' && id) await agentCommands.disconnect(command, parse(AGENT_INPUTS.disconnect, { agentId, connectionId: id }));
  else if (sub === 'grants' && !id) {
    const body = await ctx.body();
    await agentCommands.revokeGrant(command, parse(AGENT_INPUTS.revokeGrant, { agentId, appId: body.app_id, scope: body.scope }));
  } else throw new ApiError(404, 'not_found', 'no such resource');
  return Response.json({ deleted: true });
});
