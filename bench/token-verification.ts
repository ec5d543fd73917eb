// Token verification, in process: the app kit's verifyAccessToken (with its verified-token cache) against
// jose.jwtVerify with the same key and options, and the raw ES256 signature check as the physical limit. The token is
// a real Portico access token (audience <issuer>/api/mcp).
import { createPublicKey, verify } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWK } from 'jose';
import { verifyAccessToken } from '../app-kit/protected-resource';
import { alternate, measureInProcess, ratio, type ScenarioResult, ISSUER } from './lib/harness';
import type { BenchContext } from './run';

const AMOUNT = 20_000;

export async function tokenVerification(ctx: BenchContext): Promise<ScenarioResult> {
  const token = await ctx.apiToken();
  const jwks = (await (await fetch(`${ctx.env.portico.url}/oidc/jwks`)).json()) as { keys: JWK[] };
  const keys = createLocalJWKSet(jwks);
  const config = { issuer: ISSUER, audience: `${ISSUER}/api/mcp`, resource: `${ISSUER}/api/mcp`, scopesSupported: ['mcp'] };
  const kit = () =>
    measureInProcess(async () => {
      const check = await verifyAccessToken(token, config, keys);
      if (!check.ok) throw new Error(check.error.description);
    }, AMOUNT, 1);
  const jose = () => measureInProcess(() => jwtVerify(token, keys, { issuer: ISSUER, audience: config.audience, algorithms: ['ES256'], typ: 'at+jwt' }), AMOUNT, 1);
  const { portico, baseline } = await alternate(kit, jose);
  // The physical limit: one ES256 signature verification, nothing else.
  const { kid } = decodeProtectedHeader(token);
  const key = createPublicKey({ key: jwks.keys.find((candidate) => candidate.kid === kid) as never, format: 'jwk' });
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const input = Buffer.from(`${header}.${payload}`);
  const raw = Buffer.from(signature, 'base64url');
  const limit = await measureInProcess(async () => {
    if (!verify('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, raw)) throw new Error('bad signature');
  }, AMOUNT, 1);
  return {
    name: 'token verification',
    portico,
    baseline: { ...baseline, label: 'jose.jwtVerify, same key' },
    limit: { ...limit, label: 'raw ES256 verify' },
    ratio: ratio(portico, baseline),
    notes: [`in process, one at a time, ${AMOUNT} verifications a run; the kit caches a verified token by its SHA-256 until its exp`],
  };
}
