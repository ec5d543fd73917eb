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
 * Where challenges live until they are used or expire. `consume` must be atomic: of two concurrent retries with
 * one token, exactly one may get `true`. Portico keeps its challenges in PostgreSQL; an app with one instance can
 * use memoryConfirmationStore, an app with several needs a shared store.
 */
export interface ConfirmationStore {
  save(nonceHash: string, binding: ConfirmationBinding, expiresAt: Date): Promise<void>;
  /** Removes the challenge and answers true only if it exists, matches the binding exactly and has not expired. */
  consume(nonceHash: string, binding: ConfirmationBinding, now: Date): Promise<boolean>;
  purgeExpired(now: Date): Promise<number>;
}

const sameBinding = (a: ConfirmationBinding, b: ConfirmationBinding) =>
  a.tool === b.tool && a.subject === b.subject && a.actor === b.actor && a.clientId === b.clientId && a.argumentsDigest === b.argumentsDigest;

/** One process's challenges, bounded: when full, the oldest are dropped (a dropped token only means a new challenge). */
export function memoryConfirmationStore(maxEntries = 10_000): ConfirmationStore {
  const entries = new Map<string, { binding: ConfirmationBinding; expiresAt: number }>();
  const purge = (now: Date) => {
    let removed = 0;
    for (const [key, entry] of entries) if (entry.expiresAt <= now.getTime()) (entries.delete(key), (removed += 1));
    return removed;
  };
  return {
    async save(nonceHash, binding, expiresAt) {
      if (entries.size >= maxEntries) purge(new Date());
      while (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(nonceHash, { binding, expiresAt: expiresAt.getTime() });
    },
    // Synchronous check-and-delete: nothing can interleave within one event-loop turn.
    async consume(nonceHash, binding, now) {
      const entry = entries.get(nonceHash);
      if (!entry || entry.expiresAt <= now.getTime() || !sameBinding(entry.binding, binding)) return false;
      entries.delete(nonceHash);
      return true;
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
  /** The in-band text the caller shows to the human who must confirm. */
  text: string;
}

export type GateDecision =
  | { run: true; confirmed: boolean; args: Record<string, unknown> }
  | { run: false; challenge: ConfirmationChallenge; reason: 'no_token' | 'token_not_valid' };

export interface ConfirmationGate {
  /** Decides whether this call runs now. Only approval_required tools are held; the others always run. */
  check(tool: GatedTool, args: Readonly<Record<string, unknown>>, caller: { subject: string; actor?: string; clientId: string }): Promise<GateDecision>;
}

export function createConfirmationGate(options: { store: ConfirmationStore; ttlSeconds?: number; now?: () => Date }): ConfirmationGate {
  const ttlSeconds = options.ttlSeconds ?? CONFIRMATION_TTL_SECONDS;
  const now = options.now ?? (() => new Date());
  return {
    async check(tool, args, caller) {
      const { [CONFIRMATION_TOKEN_PARAMETER]: presented, ...rest } = args;
      if (tool.riskLevel !== 'approval_required') return { run: true, confirmed: false, args: rest };
      const binding: ConfirmationBinding = { tool: tool.name, subject: caller.subject, actor: caller.actor ?? '', clientId: caller.clientId, argumentsDigest: argumentsDigest(rest) };
      const at = now();
      if (typeof presented === 'string' && presented.startsWith(TOKEN_PREFIX) && presented.length <= 128) {
        if (await options.store.consume(hashConfirmationNonce(presented), binding, at)) return { run: true, confirmed: true, args: rest };
      }
      // No token, or one that is expired, used, or bound to something else: never an error, always a fresh challenge.
      await options.store.purgeExpired(at);
      const token = `${TOKEN_PREFIX}${randomBytes(24).toString('base64url')}`;
      const expiresAt = new Date(at.getTime() + ttlSeconds * 1000);
      await options.store.save(hashConfirmationNonce(token), binding, expiresAt);
      return { run: false, reason: presented === undefined ? 'no_token' : 'token_not_valid', challenge: { token, tool: tool.name, expiresAt, text: challengeText(tool, rest, token, expiresAt, ttlSeconds, presented !== undefined) } };
    },
  };
}

function challengeText(tool: GatedTool, args: Record<string, unknown>, token: string, expiresAt: Date, ttlSeconds: number, hadToken: boolean): string {
  return [
    `Confirmation required: "${tool.name}" is an approval_required operation and has not run.`,
    ...(hadToken ? ['The confirmation token given is not valid for this call (used, expired, or for other arguments); this is a new challenge.'] : []),
    `What it does: ${tool.description}`,
    ...(tool.warning ? [`Warning: ${tool.warning}`] : []),
    `Arguments: ${canonicalize(args)}`,
    `Show this to the person you act for. Only if they say yes, call "${tool.name}" again with exactly the same arguments and "${CONFIRMATION_TOKEN_PARAMETER}": "${token}".`,
    `The token works once, for these arguments only, and expires in ${ttlSeconds} seconds (${expiresAt.toISOString()}). It is not a credential.`,
  ].join('\n');
}
