'use server';
// Servers (the MCP gateway, issue 58): each action validates, authorizes `apps.manage` and runs one gateway command
// (lib/gateway/servers.ts) through the organization-operation kernel. Adding a server and reading its tools again
// reach the upstream over HTTP first: they go through the doors (lib/gateway/doors.ts), which run their own
// operation after the read, so those actions hold no transaction (orgAction's `transaction: false`).
import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { addServerFromUpstream, gatewayDoorDeps, refreshServerTools } from '@/lib/gateway/doors';
import {
  approveGatewayTool,
  findGatewayServer,
  removeGatewayServer,
  setGatewayCredential,
  setGatewayLimits,
  setGatewayServerDisabled,
  setGatewayToolLevel,
  setGatewayToolPermission,
  type GatewayServer,
} from '@/lib/gateway/servers';
import type { RiskLevel } from '@/app-kit/risk';
import type { Queryable } from '@/lib/db/client';
import { localized, type Translator } from '@/lib/i18n/catalogs';
import type { Refusal } from '@/lib/refusals/refusal';
import { runtime } from '@/lib/runtime';
import { getT, requestLocale } from '@/app/_lib/i18n/server';
import { actionRefusal, optionalSlug, orgAction, spoken } from '../../_lib/action';
import { FORM_LIMIT_RANGES, gatewayLimitsOf } from './limits';

const deps = gatewayDoorDeps;

/**
 * A gateway rule's field, in the form's name for it: the upstream's failure to answer is about the URL typed, a bad
 * header about the header field, a limit about its field in the form's units. Any other refusal: as it says.
 */
const FORM_FIELD: Record<string, string> = {
  url: 'url',
  name: 'name',
  slug: 'slug',
  credentialHeader: 'credentialHeader',
  credentialValue: 'credentialValue',
  timeoutMs: 'timeoutSeconds',
  maxResponseBytes: 'maxResponseKb',
  maxConcurrentCalls: 'maxConcurrentCalls',
};
const nextToField = (refusal: Refusal) => (refusal.domain === 'gateway' && refusal.field && FORM_FIELD[refusal.field] ? { field: FORM_FIELD[refusal.field] } : undefined);

const serverSlug = z.string().trim().max(64);

async function serverOrRefuse(db: Queryable, orgId: string, slug: string): Promise<GatewayServer> {
  const server = await findGatewayServer(db, orgId, slug);
  if (!server) throw actionRefusal(localized('console.servers.errors.serverNotFound'));
  return server;
}

const wholeNumber = (message: string, range: { min: number; max: number }) =>
  z
    .string({ error: message })
    .trim()
    .regex(/^\d{1,9}$/, message)
    .transform(Number)
    .refine((value) => value >= range.min && value <= range.max, message);

/** The three limits in the form's units, each refused next to its field in the reader's words. */
const limitsSchema = (t: Translator) => ({
  timeoutSeconds: wholeNumber(t('console.servers.errors.timeout', FORM_LIMIT_RANGES.timeoutSeconds), FORM_LIMIT_RANGES.timeoutSeconds),
  maxResponseKb: wholeNumber(t('console.servers.errors.maxResponse', FORM_LIMIT_RANGES.maxResponseKb), FORM_LIMIT_RANGES.maxResponseKb),
  maxConcurrentCalls: wholeNumber(t('console.servers.errors.concurrent', FORM_LIMIT_RANGES.maxConcurrentCalls), FORM_LIMIT_RANGES.maxConcurrentCalls),
});

/** A header credential: both fields, each refused next to itself when empty (the gateway checks the rest). */
const credentialFields = (t: Translator) => ({
  credentialHeader: z.string().trim().min(1, t('console.servers.errors.headerRequired')).max(64, spoken(t, localized('refusals.gateway.credentialHeader'))),
  // Kept as typed (a token's value is not trimmed for the person); the gateway refuses a line break or a length it cannot seal.
  credentialValue: z.string().min(1, t('console.servers.errors.valueRequired')).max(4096, spoken(t, localized('refusals.gateway.credentialValue'))),
});

export const addServerAction = orgAction(
  {
    permission: 'apps.manage',
    transaction: false,
    input: (t) =>
      z
        .object({
          name: z.string().trim().min(1, t('console.servers.errors.name')).max(80, t('console.servers.errors.name')),
          slug: optionalSlug(t),
          url: z.string().trim().min(1, t('console.servers.errors.url')).max(2048, spoken(t, localized('refusals.gateway.url'))),
          credential: z.enum(['none', 'header'], { error: t('console.servers.errors.credential') }),
          credentialHeader: z.string().optional(),
          credentialValue: z.string().optional(),
          ...limitsSchema(t),
        })
        .superRefine((input, ctx) => {
          if (input.credential !== 'header') return;
          const fields = z.object(credentialFields(t)).safeParse(input);
          if (!fields.success) for (const issue of fields.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
        }),
    refused: nextToField,
  },
  async ({ db, scope, input, access }) => {
    const credential = input.credential === 'header' ? { header: input.credentialHeader ?? '', value: input.credentialValue ?? '' } : undefined;
    const added = await addServerFromUpstream(db, scope, { name: input.name, ...(input.slug ? { slug: input.slug } : {}), url: input.url, ...(credential ? { credential } : {}), limits: gatewayLimitsOf(input) }, deps());
    const t = await getT('console.servers');
    return { status: 'ok', message: t('done.added', { name: added.server.name, count: added.tools }), redirect: `/console/${access.org.slug}/servers/${added.server.slug}?added=1` };
  },
);

/** Reads the server's tools again (a failed read is recorded as its status and said as the gateway says it). */
export const refreshToolsAction = orgAction(
  { permission: 'apps.manage', transaction: false, input: z.object({ server: serverSlug }) },
  async ({ db, scope, input, access }) => {
    const server = await serverOrRefuse(db, access.org.id, input.server);
    try {
      const read = await refreshServerTools(db, scope, server, deps());
      const t = await getT('console.servers');
      const list = new Intl.ListFormat(await requestLocale(), { type: 'conjunction' });
      const names = (tools: string[]) => list.format(tools);
      const lines = [
        read.added.length + read.changed.length + read.removed.length + read.returned.length === 0
          ? t('done.nothingChanged')
          : t('done.refreshed', { added: read.added.length, changed: read.changed.length, removed: read.removed.length }),
        read.added.length > 0 ? t('done.addedNames', { names: names(read.added) }) : '',
        read.changed.length > 0 ? t('done.changedNames', { names: names(read.changed) }) : '',
        read.removed.length > 0 ? t('done.removedNames', { names: names(read.removed) }) : '',
        read.returned.length > 0 ? t('done.returnedNames', { names: names(read.returned) }) : '',
        read.skipped > 0 ? t('done.skipped', { count: read.skipped }) : '',
      ];
      return { status: 'ok', message: lines.filter(Boolean).join(' ') };
    } finally {
      // A failed read is recorded as the server's status: the page shows it even though the action is refused.
      revalidatePath(`/console/${access.org.slug}/servers`, 'layout');
    }
  },
);

/**
 * The tools table's one form: `intent` names what to do and the row (`approve:<tool>`, `level:<tool>`,
 * `permission:<tool>`); the row's fields are `digest:<tool>` (the offered digest the page showed), `level:<tool>`
 * and `permission:<tool>`.
 */
export const toolAction = orgAction(
  {
    permission: 'apps.manage',
    input: (t) =>
      z
        .object({
          server: serverSlug,
          intent: z.string().regex(/^(approve|level|permission):[A-Za-z0-9_.-]{1,128}$/, t('console.servers.errors.intent')),
        })
        .catchall(z.unknown()),
  },
  async ({ tx, audit, scope, input, access }) => {
    const server = await serverOrRefuse(tx, access.org.id, input.server);
    const separator = input.intent.indexOf(':');
    const intent = input.intent.slice(0, separator);
    const tool = input.intent.slice(separator + 1);
    const rowField = (name: string) => {
      const value = input[`${name}:${tool}`];
      return typeof value === 'string' ? value : '';
    };
    const ctx = { tx, audit, org: scope.org, actor: scope.actor };
    const t = await getT('console.servers');
    if (intent === 'approve') {
      const level = rowField('level');
      await approveGatewayTool(ctx, server, { tool, digest: rowField('digest'), ...(level ? { level: level as RiskLevel } : {}), approvedBy: access.user.id });
      return { status: 'ok', message: t('done.approved', { tool }) };
    }
    if (intent === 'level') {
      if (!(await setGatewayToolLevel(ctx, server, tool, rowField('level') as RiskLevel))) throw actionRefusal(localized('console.servers.errors.levelAlready', { tool }));
      return { status: 'ok', message: t('done.level', { tool }) };
    }
    const permission = rowField('permission').trim();
    if (!(await setGatewayToolPermission(ctx, server, tool, permission))) throw actionRefusal(localized('console.servers.errors.permissionAlready', { tool }));
    return { status: 'ok', message: t('done.permission', { tool, permission }) };
  },
);

export const setServerDisabledAction = orgAction(
  { permission: 'apps.manage', input: z.object({ server: serverSlug, disabled: z.enum(['true', 'false']) }) },
  async ({ tx, audit, scope, input, access }) => {
    const server = await serverOrRefuse(tx, access.org.id, input.server);
    const disabled = input.disabled === 'true';
    if (!(await setGatewayServerDisabled({ tx, audit, org: scope.org, actor: scope.actor }, server, disabled))) {
      throw actionRefusal(disabled ? localized('console.servers.errors.offAlready') : localized('console.servers.errors.onAlready'));
    }
    const t = await getT('console.servers');
    return { status: 'ok', message: disabled ? t('done.turnedOff', { name: server.name }) : t('done.turnedOn', { name: server.name }) };
  },
);

/** A new header credential, sealed at once; the form never shows it again. */
export const setCredentialAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ server: serverSlug, ...credentialFields(t) }), refused: nextToField },
  async ({ tx, audit, scope, input, access }) => {
    const server = await serverOrRefuse(tx, access.org.id, input.server);
    await setGatewayCredential({ tx, audit, org: scope.org, actor: scope.actor }, server, { header: input.credentialHeader, value: input.credentialValue }, runtime().atRestKey);
    return { status: 'ok', message: (await getT('console.servers'))('done.credentialSaved') };
  },
);

export const removeCredentialAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ server: serverSlug, confirmed: z.literal('yes', { error: t('console.action.confirm.removal') }) }) },
  async ({ tx, audit, scope, input, access }) => {
    const server = await serverOrRefuse(tx, access.org.id, input.server);
    if (server.credentialKind === 'none') throw actionRefusal(localized('console.servers.errors.noCredential'));
    await setGatewayCredential({ tx, audit, org: scope.org, actor: scope.actor }, server, null, runtime().atRestKey);
    return { status: 'ok', message: (await getT('console.servers'))('done.credentialRemoved') };
  },
);

export const setLimitsAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ server: serverSlug, ...limitsSchema(t) }), refused: nextToField },
  async ({ tx, audit, scope, input, access }) => {
    const server = await serverOrRefuse(tx, access.org.id, input.server);
    await setGatewayLimits({ tx, audit, org: scope.org, actor: scope.actor }, server, gatewayLimitsOf(input));
    return { status: 'ok', message: (await getT('console.servers'))('done.limitsSaved') };
  },
);

export const removeServerAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ server: serverSlug, confirmSlug: z.string().trim(), confirmed: z.literal('yes', { error: t('console.action.confirm.removal') }) }) },
  async ({ tx, audit, scope, input, access }) => {
    const server = await serverOrRefuse(tx, access.org.id, input.server);
    if (input.confirmSlug !== server.slug) throw actionRefusal(localized('console.servers.errors.wrongSlug', { slug: server.slug }), 'confirmSlug');
    await removeGatewayServer({ tx, audit, org: scope.org, actor: scope.actor }, server);
    return { status: 'ok', message: (await getT('console.servers'))('done.removed', { name: server.name }), redirect: `/console/${access.org.slug}/servers?removed=1` };
  },
);
