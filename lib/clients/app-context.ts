// Which app, and whose brand, a sign-in is for: resolved on the server from the client of the authorization
// request, never from display values in the query string.
import { policyOfKind } from '../oidc/client-policy';
import { eq } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { apps, clients, organizations, redirectUris } from '../db/schema';

export interface AppSignInContext {
  clientKind: 'app' | 'external' | 'dynamic' | 'cimd';
  /** The app is disabled: its sign-in card refuses, saying so. */
  appDisabled: boolean;
  app: { id: string; name: string; avatarUrl: string | null; publishOrigin: string | null; descriptions: Record<string, string> };
  /** The client's registered redirect URIs (dev-only ones excluded). */
  redirectUris: string[];
  org: {
    id: string;
    name: string;
    /** The organization's default language (lib/i18n/negotiate.ts), or null. */
    defaultLocale: string | null;
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
  const registered = await db
    .select({ uri: redirectUris.uri, devOnly: redirectUris.devOnly })
    .from(redirectUris)
    .where(eq(redirectUris.clientId, clientId));
  return {
    clientKind: row.client.kind,
    appDisabled: row.app.disabledAt !== null,
    redirectUris: registered.filter((uri) => !uri.devOnly).map((uri) => uri.uri),
    ...contextOf(row.app, row.org),
  };
}

export type AppContext = Pick<AppSignInContext, 'app' | 'org'>;

/** The app and its organization's brand, for the header of an authorization screen (by the app's id). */
export async function findAppContext(db: Queryable, appId: string): Promise<AppContext | undefined> {
  const [row] = await db
    .select({ app: apps, org: organizations })
    .from(apps)
    .innerJoin(organizations, eq(organizations.id, apps.orgId))
    .where(eq(apps.id, appId))
    .limit(1);
  return row ? contextOf(row.app, row.org) : undefined;
}

function contextOf(app: typeof apps.$inferSelect, org: typeof organizations.$inferSelect): AppContext {
  return {
    app: { id: app.id, name: app.name, avatarUrl: app.avatarUrl, publishOrigin: app.publishOrigin, descriptions: app.descriptions },
    org: organizationFrame(org),
  };
}

/** The organization as a sign-in screen shows it: its whitelabel brand when it has one. */
export function organizationFrame(org: typeof organizations.$inferSelect): AppSignInContext['org'] {
  const branded = org.brandDisplayName || org.brandLogoUrl || org.brandPrimaryColor || org.brandBackgroundColor;
  return {
    id: org.id,
    name: org.name,
    defaultLocale: org.defaultLocale,
    brand: branded
      ? {
          displayName: org.brandDisplayName ?? org.name,
          logoUrl: org.brandLogoUrl,
          primaryColor: org.brandPrimaryColor,
          backgroundColor: org.brandBackgroundColor,
        }
      : null,
  };
}

/**
 * The address the sign-in card shows for the app. It comes from the request only when the client is the app's
 * own and the redirect URI is registered for it by exact match; otherwise the app's known publish address;
 * otherwise nothing. An unvalidated value from the query string is never shown.
 */
export function displayedAppAddress(context: AppSignInContext, requestedRedirectUri: unknown): string | undefined {
  if (policyOfKind(context.clientKind).firstParty && typeof requestedRedirectUri === 'string' && context.redirectUris.includes(requestedRedirectUri)) {
    // A native app's private-use scheme (RFC 8252 §7.1) has no origin to show ("null"): its publish address instead.
    const url = new URL(requestedRedirectUri);
    if (url.protocol === 'https:' || url.protocol === 'http:') return url.origin;
  }
  return context.app.publishOrigin ?? undefined;
}

/** An app's description in a language: that language's, else the English one, else none (admins' words, as written). */
export function descriptionIn(descriptions: Record<string, string> | undefined, locale: string): string | undefined {
  const text = descriptions?.[locale] ?? descriptions?.en;
  return text?.trim() ? text : undefined;
}
