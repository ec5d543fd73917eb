// The confirmation gate's store for Portico: challenges in PostgreSQL, for Portico's own tools and (through the
// signed app API) for apps built on the kit. `redeem` is one DELETE … RETURNING that matches the whole binding, the
// expiry and a confirmation, so of two concurrent retries on any instances exactly one gets the row, and none before
// the person confirmed. Times of the gate are its clock (passed in), so tests can move time forward.
import { randomBytes } from 'node:crypto';
import { and, eq, gt, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import canonicalize from 'canonicalize';
import {
  CONFIRMATION_TOKEN_PARAMETER,
  CONFIRMATION_TTL_SECONDS,
  createConfirmationGate,
  type ConfirmationBinding,
  type ConfirmationGate,
  type ConfirmationMode,
  type ConfirmationStore,
  type Redemption,
  type StoredChallenge,
} from '../../app-kit/risk';
import type { Database, Queryable } from '../db/client';
import { recordAuditEvent } from '../audit/events';
import { notifyConfirmation, type NotifyDeps } from '../notifications/notify';
import { confirmationChallenges, memberships, organizations } from '../db/schema';
import { DEFAULT_LOCALE, translator } from '../i18n/catalogs';
import { localeOfUser } from '../i18n/recipient';
import { confirmationPageUrl } from './urls';

const MAX_PER_SUBJECT = 50;


/** Where a challenge belongs: an app (the kit's tools) or Portico itself; the organization its audit goes to. */
export interface ChallengeOwner {
  appId?: string;
  /** The organization, or how to find it from the call (Portico's own tools name it in `org`). */
  orgId?: (challenge: StoredChallenge) => Promise<string | null>;
}

/** The whole binding, the owner (an app's challenges are redeemed only by that app, Portico's only by Portico) and the expiry. */
const bindingMatches = (nonceHash: string, binding: ConfirmationBinding, now: Date, appId: string | undefined) =>
  and(
    eq(confirmationChallenges.nonceHash, nonceHash),
    appId ? eq(confirmationChallenges.appId, appId) : isNull(confirmationChallenges.appId),
    eq(confirmationChallenges.tool, binding.tool),
    eq(confirmationChallenges.subject, binding.subject),
    eq(confirmationChallenges.actor, binding.actor),
    eq(confirmationChallenges.clientId, binding.clientId),
    eq(confirmationChallenges.argumentsDigest, binding.argumentsDigest),
    gt(confirmationChallenges.expiresAt, now),
  );

/**
 * `notify`: mail the person who must confirm (lib/notifications/notify.ts), in the challenge's transaction; a
 * challenge a person confirms is also audited (`confirmation.requested`, which reaches webhooks) there.
 */
export function postgresConfirmationStore(db: Queryable, issuer: string, owner: ChallengeOwner = {}, notify?: NotifyDeps): ConfirmationStore {
  // The challenge, its audit event and its notice commit together (the pool's transaction, or the caller's).
  const inTransaction = <T,>(work: (tx: Queryable) => Promise<T>): Promise<T> => ('transaction' in db ? (db as Database).transaction(work) : work(db));
  return {
    confirmsHumans: true,
    async save(challenge) {
      const id = `cnf_${randomBytes(24).toString('base64url')}`;
      const { binding } = challenge;
      const orgId = owner.orgId ? await owner.orgId(challenge) : null;
      await inTransaction(async (tx) => {
        const [saved] = await tx.insert(confirmationChallenges).values({
          nonceHash: challenge.nonceHash,
          id,
          ...binding,
          appId: owner.appId ?? null,
          orgId,
          riskLevel: challenge.riskLevel,
          description: challenge.description,
          warning: challenge.warning ?? null,
          canonicalArguments: challenge.canonicalArguments,
          needsHuman: challenge.needsHuman,
          // In-band: the caller relays the token itself, so it is redeemable at once.
          confirmedAt: challenge.needsHuman ? null : sql`now()`,
          expiresAt: challenge.expiresAt,
        }).returning();
        if (challenge.needsHuman) {
          await recordAuditEvent(tx, {
            orgId,
            actor: { type: binding.subject.startsWith('agt_') ? 'agent' : 'person', id: binding.subject },
            act: binding.actor || null,
            clientId: binding.clientId,
            action: 'confirmation.requested',
            subject: { type: 'confirmation', id },
            appId: owner.appId ?? null,
            details: { tool: binding.tool, riskLevel: challenge.riskLevel, expiresAt: challenge.expiresAt.toISOString() },
          });
          if (notify) await notifyConfirmation(tx, notify, saved!);
        }
      });
      // At most MAX_PER_SUBJECT open challenges a subject, per owner (an app, or Portico): the oldest go (a dropped
      // token only means a new challenge). Per owner, so that one app cannot push out challenges of another.
      const sameOwner = owner.appId ? sql`${confirmationChallenges.appId} = ${owner.appId}` : sql`${confirmationChallenges.appId} is null`;
      await db.execute(sql`
        delete from ${confirmationChallenges} where ${confirmationChallenges.subject} = ${binding.subject} and ${sameOwner} and ${confirmationChallenges.nonceHash} in (
          select ${confirmationChallenges.nonceHash} from ${confirmationChallenges} where ${confirmationChallenges.subject} = ${binding.subject} and ${sameOwner}
          order by ${confirmationChallenges.expiresAt} desc offset ${MAX_PER_SUBJECT})`);
      return challenge.needsHuman ? { confirmationUrl: confirmationPageUrl(issuer, id) } : {};
    },
    async redeem(nonceHash, binding, now): Promise<Redemption> {
      const redeemed = await db
        .delete(confirmationChallenges)
        .where(and(bindingMatches(nonceHash, binding, now, owner.appId), isNotNull(confirmationChallenges.confirmedAt)))
        .returning({ nonceHash: confirmationChallenges.nonceHash });
      if (redeemed.length === 1) return 'run';
      const [open] = await db.select({ deniedAt: confirmationChallenges.deniedAt, confirmedAt: confirmationChallenges.confirmedAt }).from(confirmationChallenges).where(bindingMatches(nonceHash, binding, now, owner.appId));
      if (!open) return 'invalid';
      if (open.deniedAt) {
        // A denial ends the token: the caller hears it once, then the challenge is gone.
        await db.delete(confirmationChallenges).where(eq(confirmationChallenges.nonceHash, nonceHash));
        return 'denied';
      }
      // Confirmed between the two statements, or not yet: either way the token stays, and the next retry decides.
      return 'waiting';
    },
    async purgeExpired(now) {
      const purged = await db.delete(confirmationChallenges).where(confirmationPurgeable(now)).returning({ nonceHash: confirmationChallenges.nonceHash });
      return purged.length;
    },
  };
}

/**
 * The organization a call of one of Portico's own tools is about: the one its `org` argument names, when the person
 * is a member (as the tool audit decides it); otherwise none.
 */
function organizationOfCall(db: Queryable): (challenge: StoredChallenge) => Promise<string | null> {
  return async (challenge) => {
    let slug: unknown;
    try {
      slug = (JSON.parse(challenge.canonicalArguments) as { org?: unknown }).org;
    } catch {
      return null;
    }
    if (typeof slug !== 'string') return null;
    const [row] = await db
      .select({ id: organizations.id })
      .from(organizations)
      .innerJoin(memberships, and(eq(memberships.orgId, organizations.id), eq(memberships.userId, challenge.binding.subject)))
      .where(eq(organizations.slug, slug));
    return row?.id ?? null;
  };
}

/**
 * The gate of Portico's own tools (MCP, REST): its challenges in PostgreSQL, confirmed as the mode says, and its
 * words in the language of the person the call is for (`locale`: theirs, when the caller knows it already; else
 * looked up by the call's subject).
 */
export function porticoConfirmationGate(db: Queryable, options: { issuer: string; mode: ConfirmationMode; now?: () => Date; locale?: () => Promise<string>; notify?: NotifyDeps }): ConfirmationGate {
  const gate = createConfirmationGate({ store: postgresConfirmationStore(db, options.issuer, { orgId: organizationOfCall(db) }, options.notify), mode: options.mode, now: options.now });
  return inSubjectsLanguage(gate, options.locale ?? ((subject) => localeOfUser(db, subject)));
}

/**
 * The gate of a gateway server's tools (lib/gateway): its challenges owned by the server's app (redeemed only there,
 * never by Portico's own tools or another server's) and its organization, in the person's language.
 */
export function gatewayConfirmationGate(
  db: Queryable,
  options: { issuer: string; mode: ConfirmationMode; appId: string; orgId: string; now?: () => Date; locale?: () => Promise<string>; notify?: NotifyDeps },
): ConfirmationGate {
  const store = postgresConfirmationStore(db, options.issuer, { appId: options.appId, orgId: async () => options.orgId }, options.notify);
  return inSubjectsLanguage(createConfirmationGate({ store, mode: options.mode, now: options.now }), options.locale ?? ((subject) => localeOfUser(db, subject)));
}

/** Portico's own tools, by their keys in the catalogs (mcp.tools): what they do, and the warning of those that have one. */
const TOOL_KEYS = {
  whoami: 'whoami',
  'apps.list': 'apps_list',
  'apps.set_dev_environment': 'apps_set_dev_environment',
  'audit.search': 'audit_search',
  'clients.list': 'clients_list',
  'clients.revoke': 'clients_revoke',
  'clients.rotate_secret': 'clients_rotate_secret',
  'agents.grant': 'agents_grant',
  'permissions.request_sensitive_access': 'permissions_request_sensitive_access',
  'permissions.request_root_access': 'permissions_request_root_access',
  'permissions.approval_status': 'permissions_approval_status',
  'permissions.cancel_approval': 'permissions_cancel_approval',
} as const;
const WARNED = ['clients_revoke', 'clients_rotate_secret', 'agents_grant'] as const;

/**
 * A tool's description and warning in a language: the catalogs' words for one of Portico's own tools — while their
 * English is still the tool's own (a tool whose words changed since shows its own, never an outdated translation) —
 * else the tool's, as written.
 */
function toolWords(locale: string, tool: { name: string; description: string; warning?: string }): { description: string; warning?: string } {
  const key = Object.prototype.hasOwnProperty.call(TOOL_KEYS, tool.name) ? TOOL_KEYS[tool.name as keyof typeof TOOL_KEYS] : undefined;
  if (!key) return tool;
  const t = translator(locale, 'mcp.tools');
  const english = translator(DEFAULT_LOCALE, 'mcp.tools');
  const description = english(`descriptions.${key}`) === tool.description ? t(`descriptions.${key}`) : tool.description;
  const warned = (WARNED as readonly string[]).includes(key) ? (key as (typeof WARNED)[number]) : undefined;
  const warning = tool.warning && warned && english(`warnings.${warned}`) === tool.warning ? t(`warnings.${warned}`) : tool.warning;
  return { description, ...(warning ? { warning } : {}) };
}

/**
 * What the gate says of a call that did not run — the challenge, "waiting for confirmation", the denial — in the
 * language of its subject (lib/i18n/recipient.ts): the agent relays it to them. The kit writes the same lines in
 * English; here they come from the catalogs (mcp.gate), and the tokens, links, arguments and every field of the
 * decision stay exactly as the kit made them. A call that runs costs no lookup.
 */
export function inSubjectsLanguage(gate: ConfirmationGate, localeOf: (subject: string) => Promise<string>): ConfirmationGate {
  return {
    mode: gate.mode,
    async check(tool, args, caller) {
      const decision = await gate.check(tool, args, caller);
      if (decision.run) return decision;
      const locale = await localeOf(caller.subject);
      const t = translator(locale, 'mcp.gate');
      if (decision.outcome === 'waiting') return { ...decision, text: [t('waiting', { tool: tool.name }), t('waitingNext')].join('\n') };
      if (decision.outcome === 'denied') return { ...decision, text: t('denied', { tool: tool.name }) };
      const { challenge } = decision;
      const { [CONFIRMATION_TOKEN_PARAMETER]: _presented, ...rest } = args;
      const retry = { tool: tool.name, parameter: CONFIRMATION_TOKEN_PARAMETER, token: challenge.token };
      const { description, warning } = toolWords(locale, tool);
      const text = [
        t('required', { tool: tool.name }),
        ...(decision.reason === 'token_not_valid' ? [t('tokenNotValid')] : []),
        t('whatItDoes', { description }),
        ...(warning ? [t('warning', { warning })] : []),
        t('arguments', { arguments: canonicalize(rest) ?? '{}' }),
        ...(challenge.confirmationUrl ? [t('relayToPerson', { url: challenge.confirmationUrl }), t('retryAfterConfirmation', retry)] : [t('relayInBand', retry)]),
        t('expiry', { seconds: String(CONFIRMATION_TTL_SECONDS), expiresAt: challenge.expiresAt.toISOString() }),
      ].join('\n');
      return { ...decision, challenge: { ...challenge, text } };
    },
  };
}

/**
 * Challenges nobody can still need at `now`: expired ones, except one a person was asked to confirm, which stays
 * until its expiry is recorded (the ticker's confirmation.expired), or a day. The store's purge and the sweeper
 * (lib/notifications/sweeper.ts) both delete by this.
 */
export function confirmationPurgeable(now: Date): SQL {
  return sql`${confirmationChallenges.expiresAt} <= ${now.toISOString()}::timestamptz and (not ${confirmationChallenges.needsHuman} or ${confirmationChallenges.confirmedAt} is not null or ${confirmationChallenges.deniedAt} is not null or ${confirmationChallenges.expiryReportedAt} is not null or ${confirmationChallenges.expiresAt} <= ${now.toISOString()}::timestamptz - interval '1 day')`;
}
