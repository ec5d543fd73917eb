// Workload identity federation: which external workload tokens an organization accepts, for which agent, and the
// one evaluation of a presented token that both the token endpoint (lib/oidc/workload-federation.ts) and the
// console's "test this token" use.
//
// A rule trusts one issuer — a Kubernetes cluster's service-account issuer, a SPIFFE trust domain, a CI provider's
// OIDC issuer — for one agent, when the token's subject (exact) or the claims the rule names (exact values) match.
// The checks (MCP SEP-1933's profile of RFC 7523 §3): the signature with the issuer's keys (its JWKS URL through
// the outbound guard, or keys registered with the rule), `iss`, `aud` (the rule's, else Portico's issuer or its
// token endpoint), `exp` no more than an hour after `iat`, and the match. A `jti` (or, for a token without one, the
// token itself) is used once across instances: the caller records it (recordWorkloadTokenUse).
import { createHash } from 'node:crypto';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { decodeJwt, decodeProtectedHeader, errors as joseErrors, type JSONWebKeySet, type JWTPayload } from 'jose';
import { z } from 'zod';
import type { Queryable } from '../db/client';
import { agents, assertionUses, workloadTrustRules, WORKLOAD_ISSUER_KINDS, type WorkloadIssuerKind } from '../db/schema';
import { verifyWithKeys } from '../security/remote-keys';
import { isStorableText } from '../util/storable-text';
import type { OutboundPolicy } from '../http/outbound';

export type WorkloadTrustRule = typeof workloadTrustRules.$inferSelect;
export { WORKLOAD_ISSUER_KINDS, type WorkloadIssuerKind };

/** The longest lifetime (exp − iat) of a workload token Portico accepts: Kubernetes projects one-hour tokens by default. */
export const MAX_WORKLOAD_TOKEN_LIFETIME_SECONDS = 3600;
const CLOCK_TOLERANCE_SECONDS = 30;
/** How long past its `exp` a used token's record is kept: beyond the tolerance, for instances' clock drift. */
const USE_RECORD_MARGIN_SECONDS = 300;
const MAX_TOKEN_LENGTH = 16 * 1024;
/** How many distinct key sets (rules' JWKS URLs or registered sets) one presented token is verified against. */
const MAX_KEY_SOURCES_PER_TOKEN = 4;
/** Asymmetric only, never `none` or HS* (a shared secret would be a secret stored here). */
export const WORKLOAD_TOKEN_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'];
/** GitHub Actions' OIDC issuer: its tokens name the repository `repository`; other CI issuers (GitLab) `project_path`. */
export const GITHUB_ACTIONS_ISSUER = 'https://token.actions.githubusercontent.com';
const SPIFFE_ID = /^spiffe:\/\/([a-z0-9._-]{1,255})(\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]{0,2000})?$/;

/** The key under which a rule is found: the token's `iss`, or for a SPIFFE JWT-SVID without one its trust domain. */
export function issuerKeyOf(payload: JWTPayload): string | undefined {
  if (typeof payload.iss === 'string' && payload.iss.length > 0) return payload.iss;
  const spiffe = typeof payload.sub === 'string' ? SPIFFE_ID.exec(payload.sub) : null;
  return spiffe ? `spiffe://${spiffe[1]}` : undefined;
}

/**
 * The value at a dotted path, where a key may itself hold dots (Kubernetes' `kubernetes.io`): at each level the
 * longest key the remaining path starts with.
 */
export function claimAt(payload: unknown, path: string): unknown {
  let current: unknown = payload;
  let rest = path;
  while (rest.length > 0) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    const keys = Object.keys(current as Record<string, unknown>)
      .filter((key) => rest === key || rest.startsWith(`${key}.`))
      .sort((a, b) => b.length - a.length);
    const key = keys[0];
    if (key === undefined) return undefined;
    current = (current as Record<string, unknown>)[key];
    rest = rest.slice(key.length + 1);
  }
  return current;
}

/** Why a rule did not match a verified token's claims, or undefined when it matched. */
export function mismatchOf(rule: Pick<WorkloadTrustRule, 'subject' | 'claims'>, payload: JWTPayload): { claim: string; expected: string; actual: string | null } | undefined {
  if (rule.subject !== null && payload.sub !== rule.subject) return { claim: 'sub', expected: rule.subject, actual: typeof payload.sub === 'string' ? payload.sub : null };
  for (const [path, expected] of Object.entries(rule.claims)) {
    const actual = claimAt(payload, path);
    const shown = typeof actual === 'string' || typeof actual === 'number' || typeof actual === 'boolean' ? String(actual) : null;
    if (shown !== expected) return { claim: path, expected, actual: shown };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Rules: input, storage
// ---------------------------------------------------------------------------------------------------------------

/** The fields of the rule form, in English fragments (REST, CLI); the console passes its own words. */
export interface TrustRuleWords {
  name: string;
  kind: string;
  issuer: string;
  keys: string;
  jwksUri: string;
  jwks: string;
  audience: string;
  namespace: string;
  serviceAccount: string;
  spiffeId: string;
  repository: string;
  subject: string;
  claims: string;
  narrow: string;
}

export const TRUST_RULE_FRAGMENTS: TrustRuleWords = {
  name: 'is required (at most 80 characters)',
  kind: 'choose kubernetes, spiffe, ci or generic',
  issuer: 'must be an https URL without query or fragment (for SPIFFE, also spiffe://<trust-domain>)',
  keys: 'give either a JWKS URL or the issuer’s public keys, not both',
  jwksUri: 'must be an https URL',
  jwks: 'must be a JSON Web Key Set of public keys ({"keys": [...]}), without private members',
  audience: 'must be at most 500 characters',
  namespace: 'is required: the Kubernetes namespace (1-63 lowercase letters, digits or -)',
  serviceAccount: 'is required: the service account name (1-253 lowercase letters, digits, . or -)',
  spiffeId: 'must be a SPIFFE ID: spiffe://<trust-domain>/<path>',
  repository: 'is required: owner/repository',
  subject: 'must be at most 500 characters',
  claims: 'write one claim a line, as path=value (at most 10)',
  narrow: 'name the subject or at least one claim: a rule matching every token of an issuer is refused',
};

/** What a person fills in: the kind's own fields become the rule's subject and claims (expandRuleFields). */
export interface TrustRuleForm {
  name: string;
  kind: string;
  issuer: string;
  jwksUri?: string;
  jwks?: string;
  audience?: string;
  /** kubernetes */
  namespace?: string;
  serviceAccount?: string;
  /** spiffe */
  spiffeId?: string;
  /** ci: GitHub Actions (its issuer: the claim `repository`) or GitLab CI (any other issuer: `project_path`), and `ref` */
  repository?: string;
  ref?: string;
  /** generic, and extra claims for any kind: `path=value` lines */
  subject?: string;
  claims?: string;
}

export interface TrustRuleInput {
  name: string;
  kind: WorkloadIssuerKind;
  issuer: string;
  jwksUri: string | null;
  jwks: { keys: Record<string, unknown>[] } | null;
  audience: string | null;
  subject: string | null;
  claims: Record<string, string>;
}

export type RuleFieldError = { field: keyof TrustRuleForm | 'form'; message: string };

const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

function httpsUrl(raw: string, allowHttp: boolean): string | undefined {
  const url = URL.parse(raw.trim());
  if (!url || (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:'))) return undefined;
  if (url.search || url.hash || url.username || url.password) return undefined;
  return raw.trim().length <= 500 ? raw.trim() : undefined;
}

/**
 * The form as a rule, or the first field that is wrong. `allowHttp`: development and tests only
 * (PORTICO_OUTBOUND_ALLOW_LOOPBACK), for an issuer on loopback.
 */
export function expandRuleFields(form: TrustRuleForm, words: TrustRuleWords = TRUST_RULE_FRAGMENTS, allowHttp = false): { ok: true; rule: TrustRuleInput } | { ok: false; error: RuleFieldError } {
  const fail = (field: RuleFieldError['field'], message: string) => ({ ok: false as const, error: { field, message } });
  const name = form.name.trim();
  if (name.length === 0 || name.length > 80) return fail('name', words.name);
  if (!(WORKLOAD_ISSUER_KINDS as readonly string[]).includes(form.kind)) return fail('kind', words.kind);
  const kind = form.kind as WorkloadIssuerKind;
  const spiffeDomain = kind === 'spiffe' && /^spiffe:\/\/[a-z0-9._-]{1,255}$/.test(form.issuer.trim()) ? form.issuer.trim() : undefined;
  const issuer = spiffeDomain ?? httpsUrl(form.issuer, allowHttp);
  if (!issuer) return fail('issuer', words.issuer);
  const jwksUriRaw = form.jwksUri?.trim() ?? '';
  const jwksRaw = form.jwks?.trim() ?? '';
  if ((jwksUriRaw === '') === (jwksRaw === '')) return fail(jwksUriRaw === '' ? 'jwksUri' : 'jwks', words.keys);
  let jwksUri: string | null = null;
  let jwks: TrustRuleInput['jwks'] = null;
  if (jwksUriRaw) {
    jwksUri = httpsUrl(jwksUriRaw, allowHttp) ?? null;
    if (!jwksUri) return fail('jwksUri', words.jwksUri);
  } else {
    const parsed = publicKeySet(jwksRaw);
    if (!parsed) return fail('jwks', words.jwks);
    jwks = parsed;
  }
  const audience = form.audience?.trim() ? form.audience.trim() : null;
  if (audience && audience.length > 500) return fail('audience', words.audience);

  let subject: string | null = form.subject?.trim() ? form.subject.trim() : null;
  if (subject && subject.length > 500) return fail('subject', words.subject);
  const claims: Record<string, string> = {};
  for (const line of (form.claims ?? '').split('\n').map((value) => value.trim()).filter(Boolean)) {
    const at = line.indexOf('=');
    const path = at > 0 ? line.slice(0, at).trim() : '';
    const value = at > 0 ? line.slice(at + 1).trim() : '';
    if (!/^[A-Za-z0-9_:.-]{1,100}$/.test(path) || value.length === 0 || value.length > 500) return fail('claims', words.claims);
    claims[path] = value;
  }
  if (kind === 'kubernetes') {
    const namespace = form.namespace?.trim() ?? '';
    const serviceAccount = form.serviceAccount?.trim() ?? '';
    if (!/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(namespace)) return fail('namespace', words.namespace);
    if (!/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/.test(serviceAccount)) return fail('serviceAccount', words.serviceAccount);
    // A projected service-account token (Kubernetes' TokenRequest API): sub system:serviceaccount:<ns>:<sa>, and the
    // same two names under the `kubernetes.io` claim.
    subject = `system:serviceaccount:${namespace}:${serviceAccount}`;
    claims['kubernetes.io.namespace'] = namespace;
    claims['kubernetes.io.serviceaccount.name'] = serviceAccount;
  } else if (kind === 'spiffe') {
    const spiffeId = form.spiffeId?.trim() ?? '';
    const match = SPIFFE_ID.exec(spiffeId);
    if (!match || !match[2]) return fail('spiffeId', words.spiffeId);
    // A JWT-SVID's subject is its SPIFFE ID; a trust domain named as the issuer must be the ID's own.
    if (spiffeDomain && spiffeDomain !== `spiffe://${match[1]}`) return fail('spiffeId', words.spiffeId);
    subject = spiffeId;
  } else if (kind === 'ci') {
    const repository = form.repository?.trim() ?? '';
    if (!/^[A-Za-z0-9_.-]{1,100}(\/[A-Za-z0-9_.-]{1,100}){1,5}$/.test(repository)) return fail('repository', words.repository);
    // GitHub Actions names the repository `repository` (owner/repo); GitLab CI names the project `project_path`
    // (group/…/project). Both name the branch or tag `ref` (GitHub: refs/heads/main; GitLab: main).
    claims[issuer === GITHUB_ACTIONS_ISSUER ? 'repository' : 'project_path'] = repository;
    const ref = form.ref?.trim() ?? '';
    if (ref.length > 500) return fail('claims', words.claims);
    if (ref) claims.ref = ref;
  }
  if (Object.keys(claims).length > 10) return fail('claims', words.claims);
  if (subject === null && Object.keys(claims).length === 0) return fail('form', words.narrow);
  return { ok: true, rule: { name, kind, issuer, jwksUri, jwks, audience, subject, claims } };
}

/** A JWKS of public, asymmetric keys only, or undefined. */
export function publicKeySet(text: string): TrustRuleInput['jwks'] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const keys = (parsed as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > 20) return undefined;
  for (const key of keys) {
    if (key === null || typeof key !== 'object' || Array.isArray(key)) return undefined;
    const record = key as Record<string, unknown>;
    if (!['RSA', 'EC', 'OKP'].includes(String(record.kty))) return undefined;
    if (PRIVATE_JWK_MEMBERS.some((member) => member in record)) return undefined;
  }
  return { keys: keys as Record<string, unknown>[] };
}

export async function createTrustRule(db: Queryable, input: TrustRuleInput & { orgId: string; agentId: string; createdByUserId: string | null }): Promise<WorkloadTrustRule> {
  const [rule] = await db.insert(workloadTrustRules).values(input).returning();
  if (!rule) throw new Error('trust rule insert returned nothing');
  return rule;
}

export async function deleteTrustRule(db: Queryable, orgId: string, ruleId: string): Promise<WorkloadTrustRule | undefined> {
  if (!z.string().uuid().safeParse(ruleId).success) return undefined;
  const [rule] = await db.delete(workloadTrustRules).where(and(eq(workloadTrustRules.orgId, orgId), eq(workloadTrustRules.id, ruleId))).returning();
  return rule;
}

export async function listTrustRules(db: Queryable, orgId: string, agentId?: string): Promise<WorkloadTrustRule[]> {
  return db
    .select()
    .from(workloadTrustRules)
    .where(and(eq(workloadTrustRules.orgId, orgId), agentId ? eq(workloadTrustRules.agentId, agentId) : undefined))
    .orderBy(asc(workloadTrustRules.createdAt), asc(workloadTrustRules.id));
}

// ---------------------------------------------------------------------------------------------------------------
// Evaluating a presented token
// ---------------------------------------------------------------------------------------------------------------

export interface WorkloadTokenContext {
  /** Portico's issuer and token endpoint: the audiences a rule without its own accepts. */
  issuer: string;
  tokenEndpoint: string;
  outbound: OutboundPolicy;
  now?: () => Date;
}

/** Why no rule took the token, in words safe to return to the workload (nothing names a rule it did not present to). */
export type WorkloadRefusal =
  | 'malformed'
  | 'too_large'
  | 'no_issuer'
  | 'untrusted_issuer'
  | 'signature'
  | 'keys_unavailable'
  | 'expired'
  | 'not_yet_valid'
  | 'audience'
  | 'issuer'
  | 'lifetime'
  | 'no_match'
  | 'ambiguous';

export interface RuleVerdict {
  rule: WorkloadTrustRule;
  /** Undefined when it matched. */
  refusal?: WorkloadRefusal;
  mismatch?: { claim: string; expected: string; actual: string | null };
}

export type WorkloadEvaluation =
  | { ok: true; rule: WorkloadTrustRule; agentId: string; payload: JWTPayload; verdicts: RuleVerdict[] }
  | { ok: false; refusal: WorkloadRefusal; verdicts: RuleVerdict[]; payload?: JWTPayload };

export const WORKLOAD_REFUSAL_TEXT: Record<WorkloadRefusal, string> = {
  malformed: 'the assertion is not a signed JWT',
  too_large: 'the assertion is too large',
  no_issuer: 'the assertion names no issuer (iss), nor a SPIFFE ID as its subject',
  // One answer for all three (RFC 7523 §3.1 lets the server say little): which issuers an organization trusts is not
  // told to someone who cannot sign as one. The console's test names the exact reason, rule by rule.
  untrusted_issuer: 'the assertion is not signed by an issuer this organization trusts',
  signature: 'the assertion is not signed by an issuer this organization trusts',
  keys_unavailable: 'the assertion is not signed by an issuer this organization trusts',
  expired: 'the assertion has expired',
  not_yet_valid: 'the assertion is not valid yet',
  audience: 'the assertion’s audience is not this Portico (or the rule’s audience)',
  issuer: 'the assertion’s issuer does not match',
  lifetime: `the assertion lives longer than ${MAX_WORKLOAD_TOKEN_LIFETIME_SECONDS} seconds, or has no expiry`,
  no_match: 'the assertion’s subject and claims match no trust rule',
  ambiguous: 'the assertion matches trust rules of more than one agent',
};

function refusalOfJoseError(error: unknown): WorkloadRefusal {
  if (error instanceof joseErrors.JWTExpired) return 'expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'audience';
    if (error.claim === 'iss') return 'issuer';
    if (error.claim === 'nbf' || error.claim === 'iat') return 'not_yet_valid';
    return 'malformed';
  }
  if (error instanceof joseErrors.JOSEError) return 'signature';
  return 'keys_unavailable';
}

/**
 * Evaluates a workload token against the organization's rules, without recording its use: which rule took it (and
 * so which agent), or why none did, rule by rule. The token endpoint then records the use; the console's test does
 * not.
 */
export async function evaluateWorkloadToken(db: Queryable, orgId: string, token: string, ctx: WorkloadTokenContext): Promise<WorkloadEvaluation> {
  if (token.length > MAX_TOKEN_LENGTH) return { ok: false, refusal: 'too_large', verdicts: [] };
  let unverified: JWTPayload;
  try {
    const header = decodeProtectedHeader(token);
    if (typeof header.alg !== 'string' || !WORKLOAD_TOKEN_ALGORITHMS.includes(header.alg)) return { ok: false, refusal: 'signature', verdicts: [] };
    unverified = decodeJwt(token);
  } catch {
    return { ok: false, refusal: 'malformed', verdicts: [] };
  }
  const issuerKey = issuerKeyOf(unverified);
  // An issuer PostgreSQL text cannot hold (a NUL) names no rule: refused as malformed, not a failed statement.
  if (!issuerKey || !isStorableText(issuerKey)) return { ok: false, refusal: issuerKey ? 'malformed' : 'no_issuer', verdicts: [] };
  const rules = await db
    .select()
    .from(workloadTrustRules)
    .where(and(eq(workloadTrustRules.orgId, orgId), eq(workloadTrustRules.issuer, issuerKey)))
    .orderBy(asc(workloadTrustRules.createdAt), asc(workloadTrustRules.id));
  if (rules.length === 0) return { ok: false, refusal: 'untrusted_issuer', verdicts: [] };

  const now = ctx.now?.() ?? new Date();
  const verdicts: RuleVerdict[] = [];
  const verifiedBySource = new Map<string, { payload?: JWTPayload; refusal?: WorkloadRefusal }>();
  for (const rule of rules) {
    // Rules sharing their keys and audience share one verification.
    const source = rule.jwksUri ? { uri: rule.jwksUri, outbound: ctx.outbound } : { keys: rule.jwks as unknown as JSONWebKeySet };
    // SEP-1933: the authorization server's issuer (as some clients write it, with a trailing slash) or its token endpoint.
    const audience = rule.audience ?? [ctx.issuer, `${ctx.issuer}/`, ctx.tokenEndpoint];
    const cacheKey = JSON.stringify([rule.jwksUri ?? rule.jwks, audience, rule.issuer]);
    let verified = verifiedBySource.get(cacheKey);
    // At most a few key sets per presentation: a crafted token cannot make Portico fetch every rule's JWKS URL.
    if (!verified && verifiedBySource.size >= MAX_KEY_SOURCES_PER_TOKEN) verified = { refusal: 'keys_unavailable' };
    if (!verified) {
      try {
        const { payload } = await verifyWithKeys(token, source, {
          // A SPIFFE trust domain named as the issuer: JWT-SVIDs need not carry `iss`; the subject's domain chose the rule.
          ...(rule.issuer.startsWith('spiffe://') ? {} : { issuer: rule.issuer }),
          audience,
          algorithms: WORKLOAD_TOKEN_ALGORITHMS,
          requiredClaims: ['sub', 'exp'],
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          currentDate: now,
        });
        const issuedAt = typeof payload.iat === 'number' ? payload.iat : Math.floor(now.getTime() / 1000);
        if (typeof payload.exp !== 'number' || payload.exp - issuedAt > MAX_WORKLOAD_TOKEN_LIFETIME_SECONDS) verified = { refusal: 'lifetime' };
        else if (issuedAt > now.getTime() / 1000 + CLOCK_TOLERANCE_SECONDS) verified = { refusal: 'not_yet_valid' };
        else verified = { payload };
      } catch (error) {
        verified = { refusal: refusalOfJoseError(error) };
      }
      verifiedBySource.set(cacheKey, verified);
    }
    if (!verified.payload) {
      verdicts.push({ rule, refusal: verified.refusal });
      continue;
    }
    const mismatch = mismatchOf(rule, verified.payload);
    verdicts.push(mismatch ? { rule, refusal: 'no_match', mismatch } : { rule });
  }
  const matched = verdicts.filter((verdict) => verdict.refusal === undefined);
  const payload = [...verifiedBySource.values()].find((entry) => entry.payload)?.payload;
  if (matched.length === 0) {
    // The most telling reason: a signature or time problem before "nothing matched".
    const first = verdicts.find((verdict) => verdict.refusal !== 'no_match')?.refusal ?? 'no_match';
    return { ok: false, refusal: first, verdicts, ...(payload ? { payload } : {}) };
  }
  const agentsMatched = new Set(matched.map((verdict) => verdict.rule.agentId));
  if (agentsMatched.size > 1) return { ok: false, refusal: 'ambiguous', verdicts, ...(payload ? { payload } : {}) };
  const chosen = matched[0]!;
  return { ok: true, rule: chosen.rule, agentId: chosen.rule.agentId, payload: payload!, verdicts };
}

/**
 * Records the token's use, once across instances (the first insert wins): its `jti`, or the whole token for one
 * without (SPIFFE JWT-SVIDs need not carry one). False: it was used already.
 */
export async function recordWorkloadTokenUse(db: Queryable, orgId: string, token: string, payload: JWTPayload): Promise<boolean> {
  // Without a `jti`, the signed part (header and claims) names the token: not the whole string, whose signature can be
  // re-encoded (base64url padding bits, ECDSA's s and n − s) into other strings that verify just as well.
  const signed = token.split('.').slice(0, 2).join('.');
  const identifier = typeof payload.jti === 'string' && payload.jti.length > 0 ? `jti:${payload.jti}` : `signed:${createHash('sha256').update(signed).digest('base64url')}`;
  const key = createHash('sha256').update(`workload\n${orgId}\n${issuerKeyOf(payload) ?? ''}\n${identifier}`).digest('base64url');
  const [first] = await db
    .insert(assertionUses)
    .values({ key, expiresAt: new Date(((payload.exp as number) + USE_RECORD_MARGIN_SECONDS) * 1000) })
    .onConflictDoNothing()
    .returning({ key: assertionUses.key });
  return first !== undefined;
}

/** The rules' agents' names, for showing a verdict (the console). */
export async function agentNamesOf(db: Queryable, agentIds: readonly string[]): Promise<Map<string, string>> {
  if (agentIds.length === 0) return new Map();
  const rows = await db.select({ id: agents.id, name: agents.name }).from(agents).where(inArray(agents.id, [...agentIds]));
  return new Map(rows.map((row) => [row.id, row.name]));
}
