'use server';
// The Agents page's actions: each one is a command of lib/organizations/agent-commands.ts inside the console's action
// client (authorization, one transaction, exactly one audit event). Testing a workload token changes nothing and may
// fetch an issuer's keys: it runs outside any transaction and records no event.
import { z } from 'zod';
import { parsePermissionChoice, permissionChoice } from '../../_lib/permission-choice';
import { agentInputs, agentCommands, type AgentCommandContext } from '@/lib/organizations/agent-commands';
import { workloadDoorDeps } from '@/lib/organizations/workload-doors';
import { MAX_WORKLOAD_TOKEN_LIFETIME_SECONDS, type TrustRuleWords, type WorkloadEvaluation, type WorkloadRefusal } from '@/lib/organizations/workload-trust';
import { visibleText } from '@/lib/util/visible-text';
import { recordAuditEvent } from '@/lib/audit/events';
import { textIn, type LocalizedText, type Translator } from '@/lib/i18n/catalogs';
import type { Refusal } from '@/lib/refusals/refusal';
import { getT, requestLocale } from '@/app/_lib/i18n/server';
import { orgAction, type ActionState } from '../../_lib/action';

/** The commands' inputs with whole sentences in the person's language (REST and MCP keep the English fragments). */
const inputs = (t: Translator) =>
  agentInputs({
    agentId: t('console.agents.errors.agentId'),
    nameRequired: t('console.agents.errors.nameRequired'),
    nameLength: t('console.agents.errors.nameLength'),
    scope: t('console.agents.errors.scope'),
    narrowedScope: t('console.agents.errors.narrowedScope'),
    appId: t('console.agents.errors.appId'),
    targetOrg: t('console.agents.errors.targetOrg'),
    member: t('console.agents.errors.member'),
    delegate: t('console.agents.errors.delegate'),
    mode: t('console.agents.errors.mode'),
    connectionId: t('console.agents.errors.connectionId'),
    publicKey: t('console.agents.errors.publicKey'),
    keyId: t('console.agents.errors.keyId'),
    jwksUri: t('console.agents.errors.jwksUri'),
    team: t('console.agents.errors.team'),
    ruleId: t('console.agents.errors.ruleId'),
    token: t('console.agents.errors.token'),
  });

const confirmed = (t: Translator) => ({ confirmed: z.literal('yes', { error: t('console.action.confirm.plain') }) });

/** What the command did, in the person's language. */
async function said({ text }: { text: LocalizedText }): Promise<{ status: 'ok'; message: string }> {
  return { status: 'ok', message: textIn(text, await requestLocale()) };
}

/**
 * A command's refusal about one of the form's fields (a key that is no public key, a JWKS URL that is no https URL, a
 * trust rule's namespace): shown next to that field. The commands name fields as the forms do; `form` is the whole
 * form (a trust rule that would match every token of its issuer), said above the button.
 */
const nextToField = (refusal: Refusal) => (refusal.domain === 'command' && refusal.field && refusal.field !== 'form' ? { field: refusal.field } : undefined);

function commandContext({ tx, access, audit }: { tx: AgentCommandContext['tx']; access: { org: AgentCommandContext['org']; user: AgentCommandContext['person'] }; audit: AgentCommandContext['audit'] }): AgentCommandContext {
  return { tx, org: access.org, person: access.user, audit };
}

export const createAgentAction = orgAction({ permission: 'agents.manage', input: (t) => inputs(t).create }, async (ctx) => said(await agentCommands.create(commandContext(ctx), ctx.input)));

export const renameAgentAction = orgAction({ permission: 'agents.manage', input: (t) => inputs(t).rename }, async (ctx) => said(await agentCommands.rename(commandContext(ctx), ctx.input)));

export const setAgentDisabledAction = orgAction(
  { permission: 'agents.manage', input: (t) => z.object({ agentId: inputs(t).remove.shape.agentId, disabled: z.enum(['yes', 'no']), ...confirmed(t) }) },
  async (ctx) => said(await agentCommands.setDisabled(commandContext(ctx), { agentId: ctx.input.agentId, disabled: ctx.input.disabled === 'yes' })),
);

export const deleteAgentAction = orgAction({ permission: 'agents.manage', input: (t) => inputs(t).remove.extend(confirmed(t)) }, async (ctx) =>
  said(await agentCommands.remove(commandContext(ctx), ctx.input)),
);

export const moveAgentAction = orgAction({ permission: 'agents.manage', input: (t) => inputs(t).move.extend(confirmed(t)) }, async (ctx) =>
  said(
    await agentCommands.move(commandContext(ctx), ctx.input, (orgId, record) =>
      recordAuditEvent(ctx.tx, { ...record, orgId, actor: { type: 'person', id: ctx.access.user.id, label: ctx.access.user.email } }),
    ),
  ),
);

export const allowAgentUserAction = orgAction({ permission: 'agents.manage', input: (t) => inputs(t).allowUser }, async (ctx) => said(await agentCommands.allowUser(commandContext(ctx), ctx.input)));

export const disallowAgentUserAction = orgAction({ permission: 'agents.manage', input: (t) => inputs(t).disallowUser.extend(confirmed(t)) }, async (ctx) =>
  said(await agentCommands.disallowUser(commandContext(ctx), ctx.input)),
);

export const grantAgentScopeAction = orgAction(
  { permission: 'agents.manage', input: (t) => z.object({ agentId: inputs(t).grant.shape.agentId, permission: permissionChoice(t) }) },
  async (ctx) => said(await agentCommands.grant(commandContext(ctx), { agentId: ctx.input.agentId, ...ctx.input.permission })),
);

export const revokeAgentScopeAction = orgAction({ permission: 'agents.manage', input: (t) => inputs(t).revokeGrant.extend(confirmed(t)) }, async (ctx) =>
  said(await agentCommands.revokeGrant(commandContext(ctx), ctx.input)),
);

/**
 * The form posts its organization and, in own mode, an empty person and no narrowing: the strict connection schema
 * (which refuses a person in own mode) sees only the connection's own fields. The narrowing picker posts
 * `<app id> <scope>` values; those of the app being connected become the connection's subset, and a permission of
 * another app is kept as it is, for the schema to refuse.
 */
const connectForm = (t: Translator) =>
  z.preprocess((raw) => {
    const { org: _org, ...form } = raw as Record<string, unknown>;
    if (form.mode !== 'delegated') {
      delete form.delegateUserId;
      delete form.narrowedTo;
    } else if (form.narrowedTo !== undefined) {
      const chosen = (Array.isArray(form.narrowedTo) ? form.narrowedTo : [form.narrowedTo]).map(String);
      form.narrowedTo = chosen.map((value) => {
        const parsed = parsePermissionChoice(value);
        return parsed && parsed.appId === form.appId ? parsed.scope : value;
      });
    }
    return form;
  }, inputs(t).connect);

export const createConnectionAction = orgAction({ permission: 'agents.manage', input: connectForm }, async (ctx) => said(await agentCommands.connect(commandContext(ctx), ctx.input)));

export const deleteConnectionAction = orgAction({ permission: 'agents.manage', input: (t) => inputs(t).disconnect.extend(confirmed(t)) }, async (ctx) =>
  said(await agentCommands.disconnect(commandContext(ctx), ctx.input)),
);

export const setAgentSponsorAction = orgAction({ permission: 'agents.manage', input: (t) => inputs(t).setSponsor, refused: nextToField }, async (ctx) =>
  said(await agentCommands.setSponsor(commandContext(ctx), ctx.input)),
);

export const addAgentKeyAction = orgAction({ permission: 'agents.manage', input: (t) => inputs(t).addKey, refused: nextToField }, async (ctx) =>
  said(await agentCommands.addKey(commandContext(ctx), ctx.input)),
);

export const removeAgentKeyAction = orgAction({ permission: 'agents.manage', input: (t) => inputs(t).removeKey.extend(confirmed(t)) }, async (ctx) =>
  said(await agentCommands.removeKey(commandContext(ctx), ctx.input)),
);

export const setAgentJwksUriAction = orgAction({ permission: 'agents.manage', input: (t) => inputs(t).setJwksUri, refused: nextToField }, async (ctx) =>
  said(await agentCommands.setJwksUri(commandContext(ctx), ctx.input, workloadDoorDeps())),
);

/** The trust rule form's refusals as whole sentences in the person's language (REST and the CLI keep the English fragments). */
const trustRuleWords = (t: Translator): TrustRuleWords => ({
  name: t('console.agents.errors.trustRule.name'),
  kind: t('console.agents.errors.trustRule.kind'),
  issuer: t('console.agents.errors.trustRule.issuer'),
  keys: t('console.agents.errors.trustRule.keys'),
  jwksUri: t('console.agents.errors.trustRule.jwksUri'),
  jwks: t('console.agents.errors.trustRule.jwks'),
  audience: t('console.agents.errors.trustRule.audience'),
  namespace: t('console.agents.errors.trustRule.namespace'),
  serviceAccount: t('console.agents.errors.trustRule.serviceAccount'),
  spiffeId: t('console.agents.errors.trustRule.spiffeId'),
  repository: t('console.agents.errors.trustRule.repository'),
  subject: t('console.agents.errors.trustRule.subject'),
  claims: t('console.agents.errors.trustRule.claims'),
  narrow: t('console.agents.errors.trustRule.narrow'),
});

/**
 * The trust rule form: every field is text, bounded here only in size (each refused at its field in the rule's own
 * words); what each must be is the command's to say (expandRuleFields), so the console and REST refuse alike. A kind's
 * fields the form did not show arrive absent.
 */
const trustRuleForm = (t: Translator) => {
  const words = trustRuleWords(t);
  const text = (max: number, message: string) => z.string().max(max, message).optional();
  return z.object({
    agentId: inputs(t).remove.shape.agentId,
    name: z.string().max(200, words.name),
    kind: z.string().max(20, words.kind),
    issuer: z.string().max(600, words.issuer),
    jwksUri: text(600, words.jwksUri),
    jwks: text(64 * 1024, words.jwks),
    audience: text(600, words.audience),
    namespace: text(100, words.namespace),
    serviceAccount: text(300, words.serviceAccount),
    spiffeId: text(2300, words.spiffeId),
    repository: text(700, words.repository),
    // The branch or tag becomes a claim as typed: its bound is the form's (the rule's claims lines have their own).
    ref: text(500, t('console.agents.errors.trustRule.ref')),
    subject: text(600, words.subject),
    claims: text(6000, words.claims),
  });
};

export const addTrustRuleAction = orgAction({ permission: 'agents.manage', input: trustRuleForm, refused: nextToField }, async (ctx) => {
  const { agentId, ...form } = ctx.input;
  return said(await agentCommands.addTrustRule(commandContext(ctx), { agentId, ...form }, workloadDoorDeps(), trustRuleWords(await getT())));
});

export const removeTrustRuleAction = orgAction({ permission: 'agents.manage', input: (t) => inputs(t).removeTrustRule.extend(confirmed(t)) }, async (ctx) =>
  said(await agentCommands.removeTrustRule(commandContext(ctx), ctx.input)),
);

/** How one rule took a tested token: its name and agent, and why it did not match (already in the person's words). */
export interface RuleVerdictShown {
  ruleId: string;
  rule: string;
  agent: string;
  matched: boolean;
  /** Why not, when it did not match. */
  reason?: string;
  /** The claim that differed: what the rule expects and what the token carries (null: the token lacks it). */
  mismatch?: { claim: string; expected: string; actual: string | null };
}

/** A tested token's result: the summary is the state's `message`; the rules of the token's issuer, in the order tried. */
export interface TokenTestReport {
  matched: boolean;
  verdicts: RuleVerdictShown[];
}

export type TokenTestState = ActionState | (Extract<ActionState, { status: 'ok' }> & { report: TokenTestReport });

/**
 * The evaluation in the person's words. The token itself never goes back to the page: only the rules' and agents'
 * names, the reasons, and the claim that differed (its values as the rule and the token have them). Names and claim
 * values came from people and workloads: invisible formatting in them is shown as such.
 */
async function reportOf(evaluation: WorkloadEvaluation, agentNames: Map<string, string>): Promise<{ message: string; report: TokenTestReport }> {
  const t = await getT('console.agent');
  // Only the lifetime's words name a value; the others ignore it.
  const reason = (code: WorkloadRefusal) => t(`test.refusals.${code}`, { seconds: MAX_WORKLOAD_TOKEN_LIFETIME_SECONDS });
  const agentOf = (agentId: string) => visibleText(agentNames.get(agentId) ?? agentId);
  const verdicts = evaluation.verdicts.map(
    (verdict): RuleVerdictShown => ({
      ruleId: verdict.rule.id,
      rule: visibleText(verdict.rule.name),
      agent: agentOf(verdict.rule.agentId),
      matched: verdict.refusal === undefined,
      // A rule the token verified for but did not match: what differed is below it, not "matches no rule".
      ...(verdict.refusal ? { reason: verdict.refusal === 'no_match' ? t('test.differs') : reason(verdict.refusal) } : {}),
      ...(verdict.mismatch
        ? { mismatch: { claim: visibleText(verdict.mismatch.claim), expected: visibleText(verdict.mismatch.expected), actual: verdict.mismatch.actual === null ? null : visibleText(verdict.mismatch.actual) } }
        : {}),
    }),
  );
  const message = evaluation.ok ? t('test.matched', { rule: visibleText(evaluation.rule.name), agent: agentOf(evaluation.agentId) }) : t('test.refused', { reason: reason(evaluation.refusal) });
  return { message, report: { matched: evaluation.ok, verdicts } };
}

/**
 * "Test this token": which of the organization's rules would take it, rule by rule. It may read an issuer's keys
 * over HTTP, so no transaction is held; it changes nothing, so there is no event (the context's `audit` is never
 * called: a command that called it would be a mistake worth failing on).
 */
export const testWorkloadTokenAction = orgAction(
  { permission: 'agents.manage', transaction: false, input: (t) => inputs(t).testToken },
  async ({ db, access, input }): Promise<Extract<TokenTestState, { report: TokenTestReport }>> => {
    const context: AgentCommandContext = {
      tx: db,
      org: access.org,
      person: access.user,
      audit: () => Promise.reject(new Error('testing a workload token records no event')),
    };
    const { evaluation, agentNames } = await agentCommands.testToken(context, input, workloadDoorDeps());
    const { message, report } = await reportOf(evaluation, agentNames);
    return { status: 'ok', message, ...(evaluation.ok ? {} : { tone: 'warning' as const }), report };
  },
) as (previous: TokenTestState, formData: FormData) => Promise<TokenTestState>;
