// POST /api/apps/approved-actions – the app kit's `verifyApprovedAction` records the use of an access token a person
// approved through CIBA (lib/oidc/ciba.ts): {"token": "<the access token>"}. Signed like every call of the app (its
// surface secret; key id: its client id). Portico verifies the token itself — its own signature, issuer, the app's
// audience, issued to the app's own client, carrying authorization_details — and records its `jti` once: 200
// {"used": true} the first time, 409 already_used after that, on any instance (the primary key decides).
import { createLocalJWKSet, jwtVerify } from 'jose';
import { authenticateSignedAppCall } from '@/lib/clients/surface';
import { approvedActionUses } from '@/lib/db/schema';
import { readCappedText } from '@/lib/http/body';
import { oauthError, parseJsonObject } from '@/lib/http/errors';
import { db, runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

const MAX_BODY_BYTES = 16 * 1024;

export async function POST(request: Request): Promise<Response> {
  const database = db();
  const { env, atRestKey, publicJwks } = runtime();
  const body = await readCappedText(request, MAX_BODY_BYTES);
  if (body === undefined) return oauthError(413, 'invalid_request', `the body is larger than ${MAX_BODY_BYTES / 1024} KiB`);
  const signed = await authenticateSignedAppCall(database, atRestKey, request, body);
  if (!signed.ok) return oauthError(401, 'invalid_signature', signed.description);
  const parsed = parseJsonObject(body);
  if (!parsed.ok) return oauthError(400, 'invalid_request', parsed.description);
  const token = parsed.value.token;
  if (typeof token !== 'string' || token.length === 0 || token.length > 8192) return oauthError(400, 'invalid_request', 'token must be the access token the approval gave');
  let claims: Record<string, unknown>;
  try {
    ({ payload: claims } = await jwtVerify(token, createLocalJWKSet({ keys: publicJwks }), {
      issuer: env.PORTICO_ISSUER,
      audience: signed.app.identity,
      typ: 'at+jwt',
      requiredClaims: ['jti', 'exp', 'sub', 'client_id'],
    }));
  } catch {
    return oauthError(400, 'invalid_token', 'the token is not a valid, unexpired access token of this app');
  }
  if (claims.client_id !== signed.clientId) return oauthError(400, 'invalid_token', 'the token was not issued to this app’s own client');
  if (!Array.isArray(claims.authorization_details) || claims.authorization_details.length === 0) return oauthError(400, 'invalid_token', 'the token carries no approved action (authorization_details)');
  const recorded = await database
    .insert(approvedActionUses)
    .values({ tokenId: String(claims.jti), appId: signed.app.appId, expiresAt: new Date(Number(claims.exp) * 1000) })
    .onConflictDoNothing()
    .returning({ tokenId: approvedActionUses.tokenId });
  if (recorded.length === 0) return oauthError(409, 'already_used', 'this approval was used already');
  return Response.json({ used: true }, { headers: { 'Cache-Control': 'no-store' } });
}
