// Marks each token an MCP client (external, dynamic, CIMD) obtains as a use of the client and of the app it serves
// (lib/clients/cleanup.ts): after the token endpoint answered, in the same request, at most once a minute per
// client and app in this process (the database keeps it to the minute across instances).
import type Provider from 'oidc-provider';
import type { Database } from '../db/client';
import { findAppByIdentity } from '../clients/apps';
import { noteClientUse } from '../clients/cleanup';
import { clientPolicyOf } from './client-policy';

const NOTED_LIMIT = 10_000;
const notedAt = new Map<string, number>();

export function recordClientUse(provider: Provider, db: () => Database, log: (line: string) => void = console.error): void {
  provider.use(async (ctx, next) => {
    await next();
    const oidc = (ctx as { oidc?: { route?: string; client?: { clientId: string }; entities?: { AccessToken?: { resourceServer?: { audience?: unknown } } } } }).oidc;
    if (oidc?.route !== 'token' || ctx.status !== 200 || !oidc.client) return;
    const policy = clientPolicyOf(oidc.client);
    if (!policy || policy.firstParty) return;
    const audience = oidc.entities?.AccessToken?.resourceServer?.audience;
    const key = `${oidc.client.clientId}\n${String(audience ?? '')}`;
    const now = Date.now();
    if ((notedAt.get(key) ?? 0) > now - 60_000) return;
    if (notedAt.size >= NOTED_LIMIT) notedAt.clear();
    notedAt.set(key, now);
    try {
      const app = typeof audience === 'string' ? await findAppByIdentity(db(), audience) : undefined;
      await noteClientUse(db(), oidc.client.clientId, app?.id);
    } catch (error) {
      // The token was issued already: a failed note must not turn the answer into an error.
      notedAt.delete(key);
      log(`[client-use] could not note a use of ${oidc.client.clientId}: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}
