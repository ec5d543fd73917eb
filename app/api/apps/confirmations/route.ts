// POST /api/apps/confirmations – the confirmation store of an app built on the kit with `confirmations: 'portico'`
// (human mode): {"action": "save", …challenge} keeps a challenge and answers the page where the person confirms it;
// {"action": "redeem", …binding} answers whether a retry runs (run | waiting | denied | invalid), spending the token
// when it runs. Signed like the surface declaration (the app's surface secret; key id: its client id; 5 minutes;
// nonce once), so an app keeps and redeems only its own challenges. Only the SHA-256 of a token ever arrives here.
import { argumentsDigest as argumentsDigestOf, CONFIRMATION_TTL_SECONDS, isRiskLevel, type ConfirmationBinding } from '@/app-kit/risk';
import { postgresErrorCode } from '@/lib/db/client';
import { authenticateSignedAppCall } from '@/lib/clients/surface';
import { readCappedText } from '@/lib/http/body';
import { oauthError, parseJsonObject } from '@/lib/http/errors';
import { postgresConfirmationStore } from '@/lib/confirmations/store';
import { isCallOfApp } from '@/lib/confirmations/answers';
import { hitRateLimit, type RateLimitRule } from '@/lib/rate-limit/fixed-window';
import { isUuid } from '@/lib/util/uuid';
import { db, runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

const refuse = oauthError;
const MAX_BODY_BYTES = 64 * 1024;
const DIGEST = /^[A-Za-z0-9_-]{43}$/;
const isText = (value: unknown, max: number): value is string => typeof value === 'string' && value.length <= max;

const APP_CONFIRMATION_CALLS: RateLimitRule = { name: 'confirmations:app', limit: 600, windowSeconds: 60 };

/** The digest of parsed arguments, or undefined for JSON the gate could not have bound (1e400 parses as Infinity). */
function digestOrUndefined(args: Record<string, unknown>): string | undefined {
  try {
    return argumentsDigestOf(args);
  } catch {
    return undefined;
  }
}

export async function POST(request: Request): Promise<Response> {
  const database = db();
  const { env, atRestKey } = runtime();
  const body = await readCappedText(request, MAX_BODY_BYTES);
  if (body === undefined) return refuse(413, 'invalid_request', `the body is larger than ${MAX_BODY_BYTES / 1024} KiB`);
  const signed = await authenticateSignedAppCall(database, atRestKey, request, body);
  if (!signed.ok) return refuse(401, 'invalid_signature', signed.description);
  const { app } = signed;
  const parsed = parseJsonObject(body);
  if (!parsed.ok) return refuse(400, 'invalid_request', parsed.description);
  const input = parsed.value;

  // The binding, exactly as the kit's gate computed it.
  const { nonce_hash: nonceHash, tool, subject, actor, client_id: clientId, arguments_digest: argumentsDigest } = input;
  if (typeof nonceHash !== 'string' || !DIGEST.test(nonceHash)) return refuse(400, 'invalid_request', 'nonce_hash must be the SHA-256 (base64url) of the confirmation token');
  if (typeof argumentsDigest !== 'string' || !DIGEST.test(argumentsDigest)) return refuse(400, 'invalid_request', 'arguments_digest must be the SHA-256 (base64url) of the RFC 8785 arguments');
  if (!isText(tool, 200) || tool === '') return refuse(400, 'invalid_request', 'tool must be the tool’s name');
  // The token's subject: a person (their id) or an agent acting on its own (agt_…).
  if (typeof subject !== 'string' || !(isUuid(subject) || /^agt_[A-Za-z0-9_-]{1,64}$/.test(subject))) return refuse(400, 'invalid_request', 'subject must be the token’s sub (a person’s id or an agent’s)');
  if (!isText(actor, 80) || (actor !== '' && !/^agt_[A-Za-z0-9_-]{1,64}$/.test(actor))) return refuse(400, 'invalid_request', 'actor must be the token’s act.sub, or "" when the subject acts itself');
  if (!isText(clientId, 200) || clientId === '') return refuse(400, 'invalid_request', 'client_id must be the token’s client_id');
  const binding: ConfirmationBinding = { tool, subject, actor, clientId, argumentsDigest };
  // Each save or redeem counts against the app (in PostgreSQL, across instances): an app cannot flood the table.
  if ((await hitRateLimit(database, APP_CONFIRMATION_CALLS, app.appId)).limited) return refuse(429, 'slow_down', 'too many confirmation calls from this app: wait a minute', { 'Retry-After': '60' });
  if (!(await isCallOfApp(database, app, binding))) return refuse(403, 'invalid_request', 'the subject, the agent or the client is not one of this app’s (a member or agent of its organization, a client of the app)');
  const store = postgresConfirmationStore(database, env.PORTICO_ISSUER, { appId: app.appId, orgId: async () => app.orgId }, { issuer: env.PORTICO_ISSUER, atRestKey: runtime().atRestKey });
  const noStore = { 'Cache-Control': 'no-store' };

  if (input.action === 'redeem') {
    return Response.json({ redemption: await store.redeem(nonceHash, binding, new Date()) }, { headers: noStore });
  }
  if (input.action !== 'save') return refuse(400, 'invalid_request', 'action must be save or redeem');
  const { risk_level: riskLevel, description, warning, canonical_arguments: canonicalArguments } = input;
  if (riskLevel !== 'approval_required' || !isRiskLevel(riskLevel)) return refuse(400, 'invalid_request', 'only approval_required calls are confirmed');
  if (!isText(description, 2000) || description === '') return refuse(400, 'invalid_request', 'description must say what the tool does');
  if (warning !== null && warning !== undefined && !isText(warning, 2000)) return refuse(400, 'invalid_request', 'warning must be text or null');
  if (!isText(canonicalArguments, 32 * 1024)) return refuse(400, 'invalid_request', 'canonical_arguments must be the RFC 8785 form of the arguments');
  // What the person is shown must be what the token is bound to: the digest is recomputed here.
  let shown: unknown;
  try {
    shown = JSON.parse(canonicalArguments);
  } catch {
    return refuse(400, 'invalid_request', 'canonical_arguments is not JSON');
  }
  if (typeof shown !== 'object' || shown === null || Array.isArray(shown) || digestOrUndefined(shown as Record<string, unknown>) !== argumentsDigest) {
    return refuse(400, 'invalid_request', 'canonical_arguments does not match arguments_digest');
  }
  const now = new Date();
  await store.purgeExpired(now);
  // Portico's clock decides the lifetime, whatever the app's says.
  const saved = await store
    .save({
    nonceHash,
    binding,
    expiresAt: new Date(now.getTime() + CONFIRMATION_TTL_SECONDS * 1000),
    needsHuman: true,
    riskLevel,
    description,
    ...(typeof warning === 'string' && warning !== '' ? { warning } : {}),
    canonicalArguments,
    })
    .catch((error: unknown) => {
      // The same token hash twice: a second challenge must never share the first one's token.
      if (postgresErrorCode(error) === '23505') return undefined;
      throw error;
    });
  if (!saved) return refuse(409, 'invalid_request', 'a challenge with this nonce_hash exists already');
  return Response.json({ confirmation_url: saved.confirmationUrl }, { status: 201, headers: noStore });
}
