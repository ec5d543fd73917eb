// Which app, and whose brand, a sign-in is for: resolved on the server from the client of the authorization
// request, never from display values in the query string.
import { eq } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { apps, clients, organizations } from '../db/schema';

export interface AppSignInContext {
  clientKind: 'app' | 'external' | 'dynamic' | 'cimd';
  app: { id: string; name: string; avatarUrl: string | null; publishOrigin: string };
  org: {
    name: string;
    brand: { displayName: string; logoUrl: string | null; primaryColor: string | null; backgroundColor: string | null } | null;
  };
}

export async function findAppSignInContext(db: Queryable, clientId: string): Promise<AppSignInContext | undefined> {
  const [row] = await db
    .select({ client: clients, app: apps, org: organizations })
    .from(clients)
    .innerJoin(apps, eq(apps.id, clients.appId))
    .innerJoin(organizations, eq(organizations.id, apps.orgId))
    .where(eq(clients.id, clientId))
    .limit(1);
  if (!row || row.client.revokedAt) return undefined;
  const { org } = row;
  const branded = org.brandDisplayName || org.brandLogoUrl || org.brandPrimaryColor || org.brandBackgroundColor;
  return {
    clientKind: row.client.kind,
    app: { id: row.app.id, name: row.app.name, avatarUrl: row.app.avatarUrl, publishOrigin: row.app.publishOrigin },
    org: {
      name: org.name,
      brand: branded
        ? {
            displayName: org.brandDisplayName ?? org.name,
            logoUrl: org.brandLogoUrl,
            primaryColor: org.brandPrimaryColor,
            backgroundColor: org.brandBackgroundColor,
          }
        : null,
    },
  };
}
