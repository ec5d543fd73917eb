// Per-organization external clients: public MCP clients an org admin registers for one of the org's apps, and the
// listing of every client that reached the org's apps (external, dynamically registered, CIMD).
import { policyOfKind } from '../oidc/client-policy';
import { randomBytes } from 'node:crypto';
import { and, count, desc, eq, inArray } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { apps, clientAppLinks, clients, grantBindings, redirectUris } from '../db/schema';
import { registeredRedirectUriProblem } from './registration';
import { localized, textIn, type LocalizedText } from '../i18n/catalogs';

export const MAX_EXTERNAL_REDIRECT_URIS = 10;

export interface ExternalClientInput {
  orgId: string;
  appId: string;
  label: string;
  redirectUris: string[];
}

/** A refusal: `message` in English (REST, after the field's name), `text` its catalog words (the console). */
export type ExternalClientValidation = { ok: true; label: string; redirectUris: string[]; native: boolean } | { ok: false; field: 'label' | 'redirect_uris'; message: string; text: LocalizedText };

function refused(field: 'label' | 'redirect_uris', text: LocalizedText): ExternalClientValidation {
  return { ok: false, field, message: textIn(text), text };
}

/** The same redirect URI rules as dynamic registration (RFC 8252): https, loopback http, private-use schemes. */
export function validateExternalClient(label: unknown, uris: unknown): ExternalClientValidation {
  if (typeof label !== 'string' || label.trim().length === 0 || label.trim().length > 80) {
    return refused('label', localized('refusals.externalClient.label'));
  }
  if (!Array.isArray(uris) || uris.length === 0) return refused('redirect_uris', localized('refusals.externalClient.noUri'));
  const unique = [...new Set(uris.map((uri) => (typeof uri === 'string' ? uri.trim() : uri)))];
  if (unique.length > MAX_EXTERNAL_REDIRECT_URIS) return refused('redirect_uris', localized('refusals.externalClient.tooMany', { max: MAX_EXTERNAL_REDIRECT_URIS }));
  for (const uri of unique) {
    const problem = registeredRedirectUriProblem(uri);
    if (problem) return refused('redirect_uris', problem);
  }
  const strings = unique as string[];
  const native = strings.some((uri) => !uri.startsWith('https:'));
  if (native && strings.some((uri) => uri.startsWith('https:'))) {
    return refused('redirect_uris', localized('refusals.externalClient.mixed'));
  }
  return { ok: true, label: label.trim(), redirectUris: strings, native };
}

/** Registers a public client for one app of the organization. The caller checks that the app is the org's. */
export async function createExternalClient(tx: Queryable, input: ExternalClientInput & { native: boolean }): Promise<{ clientId: string }> {
  const clientId = `ext_${randomBytes(16).toString('base64url')}`;
  await tx.insert(clients).values({
    id: clientId,
    kind: 'external',
    type: 'public',
    orgId: input.orgId,
    appId: input.appId,
    name: input.label,
    tokenEndpointAuthMethod: 'none',
    metadata: { application_type: input.native ? 'native' : 'web', grant_types: ['authorization_code', 'refresh_token'] },
  });
  await tx.insert(redirectUris).values(input.redirectUris.map((uri) => ({ clientId, uri })));
  await tx.insert(clientAppLinks).values({ clientId, appId: input.appId, orgId: input.orgId });
  return { clientId };
}

export interface OrgClientListing {
  clientId: string;
  kind: 'external' | 'dynamic' | 'cimd';
  name: string;
  app: { id: string; name: string };
  redirectUris: string[];
  linkedAt: Date;
  revokedAt: Date | null;
  /** The first and the latest token the client obtained for this app (to the minute), or null. */
  firstUsedAt: Date | null;
  lastUsedAt: Date | null;
  /** Consents given to the client at the app and not yet revoked (grant bindings). */
  consents: number;
}

/** Every non-app client that reached (or, for external ones, was registered for) an app of the organization. */
export async function listOrgClients(db: Queryable, orgId: string): Promise<OrgClientListing[]> {
  const rows = await db
    .select({ link: clientAppLinks, client: clients, appName: apps.name })
    .from(clientAppLinks)
    .innerJoin(clients, eq(clients.id, clientAppLinks.clientId))
    .innerJoin(apps, eq(apps.id, clientAppLinks.appId))
    .where(eq(clientAppLinks.orgId, orgId))
    .orderBy(desc(clientAppLinks.createdAt));
  const clientIds = rows.map((row) => row.client.id);
  if (clientIds.length === 0) return [];
  const uris = await db.select({ clientId: redirectUris.clientId, uri: redirectUris.uri }).from(redirectUris).where(inArray(redirectUris.clientId, clientIds));
  const grants = await db
    .select({ clientId: grantBindings.clientId, appId: grantBindings.appId, n: count() })
    .from(grantBindings)
    .where(and(eq(grantBindings.orgId, orgId), inArray(grantBindings.clientId, clientIds)))
    .groupBy(grantBindings.clientId, grantBindings.appId);
  return rows
    .filter((row) => !policyOfKind(row.client.kind).firstParty)
    .map((row) => ({
      clientId: row.client.id,
      kind: row.client.kind as OrgClientListing['kind'],
      name: row.client.name,
      app: { id: row.link.appId, name: row.appName },
      // A CIMD client's redirect URIs live in its document; the mirror keeps the last ones seen.
      redirectUris:
        row.client.kind === 'cimd'
          ? ((row.client.metadata.redirect_uris as string[] | undefined) ?? [])
          : uris.filter((uri) => uri.clientId === row.client.id).map((uri) => uri.uri),
      linkedAt: row.link.createdAt,
      revokedAt: row.link.revokedAt,
      firstUsedAt: row.link.firstUsedAt,
      lastUsedAt: row.link.lastUsedAt,
      consents: grants.find((grant) => grant.clientId === row.client.id && grant.appId === row.link.appId)?.n ?? 0,
    }));
}
