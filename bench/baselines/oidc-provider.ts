// Baseline for the token endpoint scenarios: the same oidc-provider version with the same drizzle adapter (and the
// same signing keys, database and token lifetimes) on plain node:http, with none of Portico's additions: no
// membership re-check, no Next.js, no custom client authentication. Started by bench/run.ts as a process of its own.
//
// POST /__fixtures {"kind": "code" | "refresh", "count": n, "verifier": "…"} mints fixtures outside the measurement.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import Provider from 'oidc-provider';
import { calculatePKCECodeChallenge } from 'openid-client';
import { drizzleFor, openRawDatabase } from '../../lib/db/client';
import { loadOrCreateKeyMaterial } from '../../lib/oidc/keys';
import { createAdapterClass } from '../../lib/oidc/adapter';
import { TOKEN_TTL } from '../../lib/oidc/provider';
import { BENCH_IDLE_SECONDS } from '../lib/pools';

const [port, databaseUrl, secretKey, clientId, clientSecret, redirectUri] = process.argv.slice(2) as [string, string, string, string, string, string];
const issuer = `http://127.0.0.1:${port}`;
const raw = await openRawDatabase({ databaseUrl, poolSize: 40, idleTimeoutSeconds: BENCH_IDLE_SECONDS });
const db = drizzleFor(raw);
const keys = await loadOrCreateKeyMaterial(db, Buffer.from(secretKey, 'base64url'));

const provider = new Provider(issuer, {
  adapter: createAdapterClass(() => db, { clientSecretPlaceholder: 'unused', refreshTokenReuseGraceSeconds: 5, referenceKey: randomBytes(32) }),
  clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], id_token_signed_response_alg: 'RS256' }],
  // As Portico's apps: RS256 ID tokens (a new app's default), carrying the granted scopes' claims.
  conformIdTokenClaims: false,
  jwks: { keys: keys.signingKeys as never },
  cookies: { keys: keys.cookieKeys },
  findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub, email: 'bench@example.com', email_verified: true, name: 'Bench' }) }),
  scopes: ['openid', 'offline_access', 'email', 'profile'],
  pkce: { required: () => true },
  responseTypes: ['code'],
  issueRefreshToken: () => true,
  rotateRefreshToken: true,
  features: { devInteractions: { enabled: false } },
  ttl: { ...TOKEN_TTL },
});

async function mint(kind: 'code' | 'refresh', count: number, verifier: string): Promise<string[]> {
  const challenge = await calculatePKCECodeChallenge(verifier);
  const minted: string[] = [];
  const client = (await provider.Client.find(clientId))!;
  for (let index = 0; index < count; index += 1) {
    const grant = new provider.Grant({ accountId: 'bench-account', clientId });
    grant.addOIDCScope('openid offline_access');
    const grantId = await grant.save();
    const common = { accountId: 'bench-account', client, grantId, scope: 'openid offline_access', gty: 'authorization_code' };
    minted.push(
      kind === 'code'
        ? await new provider.AuthorizationCode({ ...common, redirectUri, codeChallenge: challenge, codeChallengeMethod: 'S256' } as never).save()
        : await new provider.RefreshToken(common as never).save(),
    );
  }
  return minted;
}

const callback = provider.callback();
createServer((req, res) => {
  if (req.url === '/__fixtures' && req.method === 'POST') {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { kind, count, verifier } = JSON.parse(Buffer.concat(chunks).toString()) as { kind: 'code' | 'refresh'; count: number; verifier: string };
      mint(kind, count, verifier).then(
        (minted) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(minted)),
        (error: unknown) => res.writeHead(500).end(String(error)),
      );
    });
    return;
  }
  callback(req, res);
}).listen(Number(port), '127.0.0.1', () => console.log(`baseline oidc-provider ready at ${issuer}`));

// Stopped by the runner with SIGTERM: exit through Node's own path, so that a --cpu-prof profile is written.
process.on('SIGTERM', () => process.exit(0));
