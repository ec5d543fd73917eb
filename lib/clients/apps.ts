// Apps an organization publishes: each one is a protected resource with a fixed identity and its own
// confidential OIDC client, so a token for one app can never be used at another.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Queryable } from '../db/client';
import { apps, clientSecrets, clients, redirectUris } from '../db/schema';
import { generateClientSecret, hashClientSecret } from './secrets';

export type App = typeof apps.$inferSelect;

export interface CreateAppInput {
  orgId: string;
  slug: string;
  name: string;
  publishOrigin: string;
  redirectUris: string[];
  avatarUrl?: string;
  /** Fixed values for reproducible setups (the demo seed); generated when absent. */
  clientId?: string;
  clientSecret?: string;
}

export interface CreatedApp {
  app: App;
  clientId: string;
  /** Shown once: only its hash is stored. */
  clientSecret: string;
}

/** `<origin>/api/mcp`: where an app serves MCP, and the RFC 8707 resource identifier naming it. */
export function appResource(publishOrigin: string): string {
  return `${publishOrigin}/api/mcp`;
}

export async function createApp(db: Queryable, input: CreateAppInput): Promise<CreatedApp> {
  const appId = randomUUID();
  const [app] = await db
    .insert(apps)
    .values({
      id: appId,
      orgId: input.orgId,
      slug: input.slug,
      name: input.name,
      avatarUrl: input.avatarUrl ?? null,
      publishOrigin: new URL(input.publishOrigin).origin,
      identity: `urn:portico:app:${appId}`,
    })
    .returning();
  if (!app) throw new Error('app insert returned nothing');

  const clientId = input.clientId ?? `app_${randomBytes(16).toString('base64url')}`;
  const clientSecret = input.clientSecret ?? generateClientSecret();
  await db.insert(clients).values({
    id: clientId,
    kind: 'app',
    type: 'confidential',
    orgId: input.orgId,
    appId,
    name: input.name,
    tokenEndpointAuthMethod: 'client_secret_basic',
    secretGeneration: 1,
  });
  await db.insert(clientSecrets).values({ clientId, generation: 1, secretHash: hashClientSecret(clientSecret) });
  if (input.redirectUris.length > 0) {
    await db.insert(redirectUris).values(input.redirectUris.map((uri) => ({ clientId, uri })));
  }
  return { app, clientId, clientSecret };
}
