// OpenID Connect Client-Initiated Backchannel Authentication (CIBA Core 1.0), poll mode, with Rich Authorization
// Requests (RFC 9396, lib/oidc/authorization-details.ts): an app's backend asks Portico to get one named person's
// approval for one exactly described action; the person is told (mail, inbox, webhook `confirmation.requested`),
// opens the confirmation page (/console/confirm/cnf_…), sees the app, the binding message and every detail, and
// approves with step-up (their strongest factor) or denies; the backend polls the token endpoint and gets an access
// token bound to the app that carries exactly the approved details.
//
// oidc-provider does the protocol (the backchannel endpoint, client authentication, the request's storage and its
// expiry, the token endpoint's authorization_pending / expired_token / access_denied). Portico supplies its
// features.ciba hooks and the answer (`answerBackchannelRequest`), and keeps the request as a human confirmation
// challenge, so that the page, the notices, the step-up and the audit are the ones every confirmation has.
//
// Who may ask: only an app's own confidential client, and only while the app has CIBA turned on (the client's
// grant_types, lib/clients/client-metadata.ts: oidc-provider answers unauthorized_client to any other).
import { randomBytes } from 'node:crypto';
import canonicalize from 'canonicalize';
import { and, count, eq, gt, isNotNull, isNull, sql } from 'drizzle-orm';
import Provider, { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { argumentsDigest, hashConfirmationNonce } from '../../app-kit/risk';
import type { StepUpFactor } from '../accounts/factors/factor';
import { ACR_MFA, ACR_PASSWORD } from '../accounts/sign-in-second-step';
import { recordAuditEvent } from '../audit/events';
import type { Database } from '../db/client';
import { confirmationChallenges, memberships, users } from '../db/schema';
import { notifyConfirmation } from '../notifications/notify';
import { hitRateLimit, type RateLimitRule } from '../rate-limit/fixed-window';
import { decryptAtRest, encryptAtRest } from '../security/at-rest';
import { isUuid } from '../util/uuid';
import { detailsOfRequest, PRINTABLE, riskOfDetails, summaryOfDetails, type AuthorizationDetail } from './authorization-details';
import type { PorticoClient } from './resource-servers';
import { normalizeEmail } from '../util/email';

/** CIBA Core §7.1 `requested_expiry`: 5 minutes unless the client asks for less or more, never more than 10. */
export const CIBA_DEFAULT_EXPIRY_SECONDS = 300;
export const CIBA_MAX_EXPIRY_SECONDS = 600;
/** CIBA Core §7.1 `binding_message`: short enough to read on a phone's lock screen and compare at a glance. */
export const BINDING_MESSAGE_MAX_LENGTH = 64;
/** A person cannot be flooded: this many open requests of one client for one person, the rest refused. */
export const MAX_PENDING_PER_PERSON_AND_CLIENT = 3;
/** And one client's requests, whoever they are for. */
const CLIENT_REQUESTS: RateLimitRule = { name: 'ciba:client', limit: 60, windowSeconds: 60 };

export interface CibaOptions {
  db: () => Database;
  issuer: string;
  atRestKey: Uint8Array;
  /** CIBA Core §7.3 `interval`: the least number of seconds between two polls of the token endpoint. */
  pollIntervalSeconds: number;
}

/** ttl.BackchannelAuthenticationRequest: the client's requested_expiry, bounded (oidc-provider checked it is a positive integer). */
export function backchannelRequestTtl(ctx: KoaContextWithOIDC | undefined): number {
  const requested = Number(ctx?.oidc?.params?.requested_expiry);
  return Number.isSafeInteger(requested) && requested > 0 ? Math.min(requested, CIBA_MAX_EXPIRY_SECONDS) : CIBA_DEFAULT_EXPIRY_SECONDS;
}

class PendingLimitReached extends Error {}

/**
 * A request over a limit: `slow_down` with 429 and Retry-After. (CIBA Core §13 lists no error for a rate limit at
 * the backchannel endpoint; the code is the one its token endpoint uses for "too often", the status says why.)
 */
function tooMany(ctx: KoaContextWithOIDC, retryAfterSeconds: number, description: string) {
  ctx.set('Retry-After', String(retryAfterSeconds));
  return Object.assign(new errors.SlowDown(description), { status: 429, statusCode: 429 });
}

export function cibaConfiguration(options: CibaOptions) {
  return {
    enabled: true,
    deliveryModes: ['poll'] as ['poll'],

    /**
     * `login_hint`: the person's email or their `sub`. Only a member of the client's organization (not disabled) is
     * found; anyone else — unknown, removed, of another organization — gets a fresh random id that findAccount then
     * does not find, so both answer unknown_user_id after the same two statements (no enumeration, CIBA Core §13).
     */
    async processLoginHint(ctx: KoaContextWithOIDC, given?: string): Promise<string> {
      const hint = String(given ?? "");
      const orgId = (ctx.oidc.client as PorticoClient | undefined)?.portico_org_id;
      const byId: boolean = isUuid(hint);
      const byEmail = !byId && hint.length <= 320 && hint.includes('@');
      const [found] =
        orgId && (byId || byEmail)
          ? await options
              .db()
              .select({ id: users.id })
              .from(users)
              .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.orgId, orgId)))
              .where(and(byId ? eq(users.id, hint) : eq(users.email, normalizeEmail(hint)), isNull(users.disabledAt)))
              .limit(1)
          : [];
      return found?.id ?? crypto.randomUUID();
    },

    async processLoginHintToken(): Promise<string> {
      throw new errors.InvalidRequest('login_hint_token is not supported: send login_hint (an email or a sub) or id_token_hint');
    },

    /** CIBA Core §7.1: required here, printable, at most 64 characters; shown to the person as data. */
    async validateBindingMessage(_ctx: KoaContextWithOIDC, message: string | undefined): Promise<void> {
      if (typeof message !== 'string' || message.trim() === '') throw new errors.InvalidBindingMessage('binding_message is required: the short text the person compares with what your app shows');
      if (message.length > BINDING_MESSAGE_MAX_LENGTH || !PRINTABLE.test(message)) {
        throw new errors.InvalidBindingMessage(`binding_message must be printable text of at most ${BINDING_MESSAGE_MAX_LENGTH} characters`);
      }
    },

    /**
     * The request's context as a whole: the client's rate, then — Portico's CIBA always approves one described
     * action — the request must carry authorization_details (each one was checked already,
     * lib/oidc/authorization-details.ts). A `request_context` is accepted and not used.
     */
    async validateRequestContext(ctx: KoaContextWithOIDC): Promise<void> {
      // Counted before the person is looked up, so that the limit also bounds how many addresses a client can try.
      const client = ctx.oidc.client as PorticoClient | undefined;
      const limit = client ? await hitRateLimit(options.db(), CLIENT_REQUESTS, client.clientId) : undefined;
      if (limit?.limited) throw tooMany(ctx, limit.retryAfterSeconds, 'too many backchannel authentication requests from this client: wait a minute');
      if (typeof ctx.oidc.params?.authorization_details !== 'string') {
        throw new errors.InvalidRequest('authorization_details is required: the action the person is asked to approve (types portico_tool_call, portico_action)');
      }
      detailsOfRequest(ctx);
    },

    /** User codes are not offered (backchannel_user_code_parameter is false for every client): nothing to check. */
    async verifyUserCode(): Promise<void> {},

    /**
     * The request is saved; now the person is asked: a human confirmation challenge, its audit event
     * (`confirmation.requested`, which reaches webhooks) and its notice, in one transaction. Over the per-person
     * limit, the saved request is removed again and the client hears slow_down (429).
     */
    async triggerAuthenticationDevice(ctx: KoaContextWithOIDC, request: InstanceType<Provider['BackchannelAuthenticationRequest']>, account: { accountId: string }, client: PorticoClient): Promise<void> {
      const db = options.db();
      const details = detailsOfRequest(ctx);
      const clientId = client.clientId;
      const sealed = await encryptAtRest(request.jti, options.atRestKey);
      const canonicalDetails = canonicalize(details) ?? '[]';
      const expiresAt = new Date(Date.now() + request.expiration * 1000);
      try {
        await db.transaction(async (tx) => {
          // One person's open requests from one client are counted and added under one lock: concurrent requests on
          // any instance cannot all pass the count.
          await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`ciba:${account.accountId}:${clientId}`}))`);
          const [open] = await tx
            .select({ n: count() })
            .from(confirmationChallenges)
            .where(
              and(
                isNotNull(confirmationChallenges.backchannelRequestSealed),
                eq(confirmationChallenges.subject, account.accountId),
                eq(confirmationChallenges.clientId, clientId),
                isNull(confirmationChallenges.confirmedAt),
                isNull(confirmationChallenges.deniedAt),
                gt(confirmationChallenges.expiresAt, sql`now()`),
              ),
            );
          if ((open?.n ?? 0) >= MAX_PENDING_PER_PERSON_AND_CLIENT) throw new PendingLimitReached();
          const id = `cnf_${randomBytes(24).toString('base64url')}`;
          const [saved] = await tx
            .insert(confirmationChallenges)
            .values({
              // Nobody holds a token for it: it is answered on its page and never redeemed through the gate.
              nonceHash: hashConfirmationNonce(`ciba_${randomBytes(32).toString('base64url')}`),
              id,
              tool: summaryOfDetails(details),
              subject: account.accountId,
              actor: '',
              clientId,
              argumentsDigest: argumentsDigest({ authorization_details: details }),
              appId: client.portico_app_id ?? null,
              orgId: client.portico_org_id ?? null,
              riskLevel: riskOfDetails(details),
              description: String(ctx.oidc.params?.binding_message ?? '').trim(),
              warning: null,
              canonicalArguments: canonicalDetails,
              needsHuman: true,
              expiresAt,
              backchannelRequestSealed: sealed,
            })
            .returning();
          await recordAuditEvent(tx, {
            orgId: client.portico_org_id ?? null,
            actor: { type: 'client', id: clientId, label: client.clientName ?? clientId },
            act: null,
            clientId,
            appId: client.portico_app_id ?? null,
            action: 'confirmation.requested',
            subject: { type: 'confirmation', id },
            details: { via: 'ciba', person: account.accountId, tool: saved!.tool, riskLevel: saved!.riskLevel, bindingMessage: saved!.description, authorizationDetails: details, expiresAt: expiresAt.toISOString() },
          });
          await notifyConfirmation(tx, { issuer: options.issuer, atRestKey: options.atRestKey }, saved!);
        });
      } catch (error) {
        await request.destroy();
        if (error instanceof PendingLimitReached) throw tooMany(ctx, 60, `this person already has ${MAX_PENDING_PER_PERSON_AND_CLIENT} requests of this client waiting for an answer`);
        throw error;
      }
      // CIBA Core §7.3: the least number of seconds between polls (oidc-provider leaves it out; the default is 5).
      (ctx.body as Record<string, unknown>).interval = options.pollIntervalSeconds;
    },
  };
}

/** RFC 8176 `amr` of a step-up factor. */
const AMR_OF_FACTOR: Record<StepUpFactor, string[]> = { passkey: ['pop', 'user'], totp: ['otp'], password: ['pwd'] };

/**
 * The person's answer, handed to oidc-provider (CIBA Core §10.1, poll mode: the client's next poll gets it). An
 * approval becomes a grant of the request's scopes and resource, and the approved details travel with it (the
 * access token's `authorization_details`); a denial becomes access_denied. A request that no longer exists (expired
 * and gone) is left alone: the client hears expired_token.
 */
export async function answerBackchannelRequest(
  provider: Provider,
  atRestKey: Uint8Array,
  challenge: { backchannelRequestSealed: string | null; canonicalArguments: string },
  answer: { decision: 'confirm' | 'deny'; factor?: StepUpFactor },
): Promise<void> {
  if (!challenge.backchannelRequestSealed) return;
  const requestId = await decryptAtRest(challenge.backchannelRequestSealed, atRestKey);
  const request = await provider.BackchannelAuthenticationRequest.find(requestId, { ignoreExpiration: true });
  if (!request || request.isExpired) return;
  if (answer.decision === 'deny') {
    await provider.backchannelResult(request, new errors.AccessDenied('the person denied the request'));
    return;
  }
  const grant = new provider.Grant({ clientId: request.clientId, accountId: request.accountId });
  if (request.scope) grant.addOIDCScope(request.scope);
  const resource = request.resource as string | string[] | undefined;
  for (const one of typeof resource === 'string' ? [resource] : (resource ?? [])) grant.addResourceScope(one, request.scope ?? '');
  await grant.save();
  const factor = answer.factor ?? 'password';
  await provider.backchannelResult(request, grant, {
    rar: JSON.parse(challenge.canonicalArguments) as AuthorizationDetail[] as unknown as NonNullable<Parameters<Provider['backchannelResult']>[2]>['rar'],
    acr: factor === 'password' ? ACR_PASSWORD : ACR_MFA,
    amr: AMR_OF_FACTOR[factor],
    authTime: Math.floor(Date.now() / 1000),
  });
}
