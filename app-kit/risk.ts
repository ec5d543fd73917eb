// The risk model and the confirmation gate, shared by Portico's own MCP server and every app built on the kit.
//
// Exactly four levels. A tool's level comes from its own declaration, optionally raised (never lowered) by an
// operator override. The highest level, approval_required, never runs on a first call: the caller gets a challenge
// (in-band, as a successful tool result) with a single-use token `confirm_<nonce>`, and a human must say yes before
// the caller repeats the call with `_confirmation_token`. The token binds the tool, the subject (and the acting
// agent), an expiry and a digest of the arguments canonicalized with RFC 8785, so "approved X, executed Y" cannot
// happen. It is not a credential: it authenticates no one and never replaces the access token.
import { createHash, randomBytes } from 'node:crypto';
import canonicalize from 'canonicalize';
import { decideOperation } from './decision';

/** Bumped on any incompatible change of the levels or the gate; servers expose it in `initialize`. */
export const RISK_MODEL_VERSION = 1;

export const RISK_LEVELS = ['safe', 'caution', 'review', 'approval_required'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

export const CONFIRMATION_TOKEN_PARAMETER = '_confirmation_token';
export const CONFIRMATION_TTL_SECONDS = 300;
const TOKEN_PREFIX = 'confirm_';

export function isRiskLevel(value: unknown): value is RiskLevel {
  return typeof value === 'string' && (RISK_LEVELS as readonly string[]).includes(value);
}

/** 0 safe (runs), 1 caution (runs, audited), 2 review (runs, audited), 3 approval_required (human confirmation). */
export function riskRank(level: RiskLevel): number {
  return RISK_LEVELS.indexOf(level);
}

/** Audited from caution up. */
export function isAudited(level: RiskLevel): boolean {
  return riskRank(level) >= riskRank('caution');
}

/**
 * MCP tool annotations that agree with the level. They are hints for the client; the server enforces the level
 * itself and never trusts them.
 */
export function annotationsFor(level: RiskLevel): { readOnlyHint: boolean; destructiveHint: boolean } {
  return { readOnlyHint: level === 'safe', destructiveHint: level === 'approval_required' };
}

export class RiskConfigurationError extends Error {
  constructor(
    message: string,
    readonly tool: string,
  ) {
    super(message);
    this.name = 'RiskConfigurationError';
  }
}

/**
 * The effective level of every tool: its declaration, raised by an override where one is configured. Unknown
 * tools, unknown levels and any override that would lower a level are configuration errors naming the tool (the
 * caller refuses to start); the critical tools must be declared approval_required.
 */
export function resolveRiskLevels(
  declared: Readonly<Record<string, RiskLevel>>,
  overrides: Readonly<Record<string, string>> = {},
  critical: readonly string[] = [],
): Record<string, RiskLevel> {
  const levels: Record<string, RiskLevel> = { ...declared };
  for (const tool of critical) {
    if (declared[tool] !== 'approval_required') throw new RiskConfigurationError(`The critical tool "${tool}" must be declared approval_required.`, tool);
  }
  for (const [tool, override] of Object.entries(overrides)) {
    const current = declared[tool];
    if (!current) throw new RiskConfigurationError(`The risk override names the tool "${tool}", which does not exist.`, tool);
    if (!isRiskLevel(override)) throw new RiskConfigurationError(`The risk override for "${tool}" is "${override}"; the levels are ${RISK_LEVELS.join(', ')}.`, tool);
    if (riskRank(override) < riskRank(current)) {
      throw new RiskConfigurationError(
        critical.includes(tool)
          ? `The risk override would lower the critical tool "${tool}" from approval_required to ${override}; critical tools are approval_required by design.`
          : `The risk override would lower "${tool}" from ${current} to ${override}; an override may only raise a level.`,
        tool,
      );
    }
    levels[tool] = override;
  }
  return levels;
}

/**
 * Only plain JSON can be bound: canonicalize() would write a Set, a Map or an invalid Date as `{}` or `null`, so two
 * different calls could share one digest ("approved X, executed Y"). Anything else is refused.
 */
function assertPlainJson(value: unknown, path: string): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`${path} is not a finite number`);
    return;
  }
  if (Array.isArray(value)) return value.forEach((item, index) => assertPlainJson(item, `${path}[${index}]`));
  if (typeof value === 'object' && (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null)) {
    for (const [key, item] of Object.entries(value)) assertPlainJson(item, `${path}.${key}`);
    return;
  }
  throw new TypeError(`${path} is not plain JSON, so a confirmation cannot be bound to it`);
}

/** RFC 8785 (JCS) over the arguments without the confirmation token, then SHA-256: the digest a token binds. */
export function argumentsDigest(args: Readonly<Record<string, unknown>>): string {
  const { [CONFIRMATION_TOKEN_PARAMETER]: _token, ...rest } = args;
  assertPlainJson(rest, 'arguments');
  const canonical = canonicalize(rest);
  if (canonical === undefined) throw new TypeError('the arguments cannot be canonicalized');
  return createHash('sha256').update(canonical).digest('base64url');
}

/** What a confirmation token is bound to, besides its nonce and expiry. */
export interface ConfirmationBinding {
  tool: string;
  /** The authenticated subject (`sub`). */
  subject: string;
  /** The acting agent (`act.sub`), or '' when the subject acts itself. */
  actor: string;
  /** The OAuth client the call came through: a token confirmed for one client is useless through another. */
  clientId: string;
  argumentsDigest: string;
}

/**
 * Who says yes to a challenge. `human`: the person the token belongs to confirms in Portico, with step-up, before the
 * token is redeemable (an agent relaying the token itself gets "waiting for confirmation"). `in_band`: the caller
 * shows the challenge and relays the token itself; weaker, for hosts that show the challenge to their user and
 * nothing else (nothing proves a human saw it).
 */
export const CONFIRMATION_MODES = ['human', 'in_band'] as const;
export type ConfirmationMode = (typeof CONFIRMATION_MODES)[number];

/** A challenge as a store keeps it: the binding, and what the confirmation page shows the person. */
export interface StoredChallenge {
  nonceHash: string;
  binding: ConfirmationBinding;
  expiresAt: Date;
  /** True in `human` mode: the token is redeemable only after the person confirmed it where the store says. */
  needsHuman: boolean;
  riskLevel: RiskLevel;
  description: string;
  warning?: string;
  /** The arguments in their RFC 8785 form: exactly what the digest covers, rendered for the person. */
  canonicalArguments: string;
}

/** What a retry with a token finds: it runs (and the token is spent), or it waits for the person, or they said no. */
export type Redemption = 'run' | 'waiting' | 'denied' | 'invalid';

/**
 * Where challenges live until they are used or expire. `redeem` must be atomic: of two concurrent retries with
 * one token, exactly one may get `run`. Portico keeps its challenges in PostgreSQL; an app with one instance can
 * use memoryConfirmationStore (in-band only), an app with several a shared store, and an app whose confirmations
 * a person must give in Portico uses Portico's store (the kit's `confirmations: 'portico'`).
 */
export interface ConfirmationStore {
  /** True when a person can confirm this store's challenges (somewhere outside the caller): needed for `human` mode. */
  readonly confirmsHumans: boolean;
  /** Keeps the challenge; answers the https page where the person confirms it (human mode). */
  save(challenge: StoredChallenge): Promise<{ confirmationUrl?: string }>;
  /**
   * `run` only if the challenge exists, matches the binding exactly, has not expired and is confirmed (in-band
   * challenges are confirmed when saved); the challenge is then removed. `waiting` leaves it as it is; `denied`
   * removes it.
   */
  redeem(nonceHash: string, binding: ConfirmationBinding, now: Date): Promise<Redemption>;
  purgeExpired(now: Date): Promise<number>;
}

const sameBinding = (a: ConfirmationBinding, b: ConfirmationBinding) =>
  a.tool === b.tool && a.subject === b.subject && a.actor === b.actor && a.clientId === b.clientId && a.argumentsDigest === b.argumentsDigest;

/**
 * One process's challenges, bounded: when full, the oldest are dropped (a dropped token only means a new challenge).
 * In-band only: nobody can confirm a challenge that lives in one process's memory.
 */
export function memoryConfirmationStore(maxEntries = 10_000): ConfirmationStore {
  const entries = new Map<string, { binding: ConfirmationBinding; expiresAt: number }>();
  const purge = (now: Date) => {
    let removed = 0;
    for (const [key, entry] of entries) if (entry.expiresAt <= now.getTime()) (entries.delete(key), (removed += 1));
    return removed;
  };
  return {
    confirmsHumans: false,
    async save(challenge) {
      if (challenge.needsHuman) throw new RiskConfigurationError('The memory confirmation store cannot hold challenges a person confirms; use in_band mode or Portico\'s store.', challenge.binding.tool);
      if (entries.size >= maxEntries) purge(new Date());
      while (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(challenge.nonceHash, { binding: challenge.binding, expiresAt: challenge.expiresAt.getTime() });
      return {};
    },
    // Synchronous check-and-delete: nothing can interleave within one event-loop turn.
    async redeem(nonceHash, binding, now) {
      const entry = entries.get(nonceHash);
      if (!entry || entry.expiresAt <= now.getTime() || !sameBinding(entry.binding, binding)) return 'invalid';
      entries.delete(nonceHash);
      return 'run';
    },
    async purgeExpired(now) {
      return purge(now);
    },
  };
}

export function hashConfirmationNonce(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** A tool as the gate sees it. */
export interface GatedTool {
  name: string;
  description: string;
  riskLevel: RiskLevel;
  /** Shown in the challenge when the operation overwrites or destroys something. */
  warning?: string;
}

export interface ConfirmationChallenge {
  token: string;
  tool: string;
  expiresAt: Date;
  /** Human mode: the https page where the person confirms (or denies) this call. */
  confirmationUrl?: string;
  /** The in-band text the caller shows to the human who must confirm. */
  text: string;
}

export type GateDecision =
  | { run: true; confirmed: boolean; args: Record<string, unknown> }
  | { run: false; outcome: 'challenge'; challenge: ConfirmationChallenge; reason: 'no_token' | 'token_not_valid' }
  /** Human mode: the token is right but the person has not confirmed yet; it stays valid (not consumed). */
  | { run: false; outcome: 'waiting'; text: string }
  /** Human mode: the person denied this call; the token is spent. */
  | { run: false; outcome: 'denied'; text: string };

export interface ConfirmationGate {
  readonly mode: ConfirmationMode;
  /** Decides whether this call runs now. Only approval_required tools are held; the others always run. */
  check(tool: GatedTool, args: Readonly<Record<string, unknown>>, caller: { subject: string; actor?: string; clientId: string }): Promise<GateDecision>;
}

export function createConfirmationGate(options: { store: ConfirmationStore; mode?: ConfirmationMode; ttlSeconds?: number; now?: () => Date }): ConfirmationGate {
  const ttlSeconds = options.ttlSeconds ?? CONFIRMATION_TTL_SECONDS;
  const now = options.now ?? (() => new Date());
  const mode = options.mode ?? 'in_band';
  // Hard to misuse: a gate that promises a human's confirmation must have somewhere a human can give it.
  if (mode === 'human' && !options.store.confirmsHumans) throw new RiskConfigurationError('Human confirmation needs a store a person can confirm in (Portico\'s); this one cannot.', '*');
  return {
    mode,
    async check(tool, args, caller) {
      const { [CONFIRMATION_TOKEN_PARAMETER]: presented, ...rest } = args;
      // The level's rule is the one every door applies (app-kit/decision.ts); the gate supplies the confirmation.
      if (decideOperation({ held: [], required: [], level: tool.riskLevel }).allowed) return { run: true, confirmed: false, args: rest };
      const binding: ConfirmationBinding = { tool: tool.name, subject: caller.subject, actor: caller.actor ?? '', clientId: caller.clientId, argumentsDigest: argumentsDigest(rest) };
      const at = now();
      if (typeof presented === 'string' && presented.startsWith(TOKEN_PREFIX) && presented.length <= 128) {
        const redemption = await options.store.redeem(hashConfirmationNonce(presented), binding, at);
        if (redemption === 'run' && decideOperation({ held: [], required: [], level: tool.riskLevel, approval: 'confirmed' }).allowed) return { run: true, confirmed: true, args: rest };
        if (redemption === 'waiting') return { run: false, outcome: 'waiting', text: waitingText(tool) };
        if (redemption === 'denied') return { run: false, outcome: 'denied', text: `"${tool.name}" did not run: the person denied this call. The confirmation token is spent; do not retry unless they ask again.` };
      }
      // No token, or one that is expired, used, or bound to something else: never an error, always a fresh challenge.
      await options.store.purgeExpired(at);
      const token = `${TOKEN_PREFIX}${randomBytes(24).toString('base64url')}`;
      const expiresAt = new Date(at.getTime() + ttlSeconds * 1000);
      const canonicalArguments = canonicalize(rest) ?? '{}';
      const { confirmationUrl } = await options.store.save({
        nonceHash: hashConfirmationNonce(token),
        binding,
        expiresAt,
        needsHuman: mode === 'human',
        riskLevel: tool.riskLevel,
        description: tool.description,
        ...(tool.warning ? { warning: tool.warning } : {}),
        canonicalArguments,
      });
      if (mode === 'human' && !confirmationUrl) throw new RiskConfigurationError('The confirmation store gave no page for the person to confirm on.', tool.name);
      const challenge = { token, tool: tool.name, expiresAt, ...(confirmationUrl ? { confirmationUrl } : {}) };
      return {
        run: false,
        outcome: 'challenge',
        reason: presented === undefined ? 'no_token' : 'token_not_valid',
        challenge: { ...challenge, text: challengeText(tool, canonicalArguments, challenge, ttlSeconds, presented !== undefined) },
      };
    },
  };
}

function waitingText(tool: GatedTool): string {
  return [
    `Waiting for confirmation: "${tool.name}" has not run. The person has not confirmed this call in Portico yet.`,
    'Ask them to open the confirmation link of the challenge, then call again with the same arguments and the same token. The token is still valid.',
  ].join('\n');
}

function challengeText(tool: GatedTool, canonicalArguments: string, challenge: { token: string; expiresAt: Date; confirmationUrl?: string }, ttlSeconds: number, hadToken: boolean): string {
  const relay = challenge.confirmationUrl
    ? [
        `A person must confirm this call in Portico: ask the person you act for to open ${challenge.confirmationUrl} and confirm it there.`,
        `After they have, call "${tool.name}" again with exactly the same arguments and "${CONFIRMATION_TOKEN_PARAMETER}": "${challenge.token}". Before that, a retry answers "waiting for confirmation".`,
      ]
    : [`Show this to the person you act for. Only if they say yes, call "${tool.name}" again with exactly the same arguments and "${CONFIRMATION_TOKEN_PARAMETER}": "${challenge.token}".`];
  return [
    `Confirmation required: "${tool.name}" is an approval_required operation and has not run.`,
    ...(hadToken ? ['The confirmation token given is not valid for this call (used, expired, or for other arguments); this is a new challenge.'] : []),
    `What it does: ${tool.description}`,
    ...(tool.warning ? [`Warning: ${tool.warning}`] : []),
    `Arguments: ${canonicalArguments}`,
    ...relay,
    `The token works once, for these arguments only, and expires in ${ttlSeconds} seconds (${challenge.expiresAt.toISOString()}). It is not a credential.`,
  ].join('\n');
}
