// What an authorization request is for, resolved on the server from the interaction oidc-provider validated:
// the client (from oidc-provider's Client model, which also serves CIMD documents) and the app it reaches (its
// own app, or for MCP clients the app its `resource` names). Every authorization screen starts here.
import type Provider from 'oidc-provider';
import type { Database } from '../db/client';
import { findAppContext, findAppSignInContext, type AppContext, type AppSignInContext } from '../clients/app-context';
import { resolveClientResource, type ClientKind, type ResourceRefusal, type ResourceTarget } from '../clients/binding';
import { PORTICO_API_SCOPES, porticoApiResource } from '../resource/portico-api';
import type { PorticoClient } from './resource-servers';
import { appResourceScopes, OIDC_SCOPES } from './resource-scope';
import { clientKindOf, policyOfKind } from './client-policy';

export interface ClientSummary {
  id: string;
  kind: ClientKind;
  name: string;
  /** The redirect URIs the client may use right now (exact match). */
  redirectUris: string[];
  appId: string | null;
  /** The metadata to mirror for a CIMD client (name and redirect URIs), so the console can show it. */
  metadata: Record<string, unknown>;
}

export type SignInTarget =
  | { kind: 'unknown_client' }
  | { kind: 'refused'; reason: ResourceRefusal; client: ClientSummary; context?: AppContext }
  | { kind: 'app_client'; client: ClientSummary; context: AppSignInContext }
  /** An MCP client bound by `resource` to an app, or to Portico's own API (then `context.org` is null). */
  | { kind: 'mcp_client'; client: ClientSummary; context: McpTargetContext; target: ResourceTarget; resource: string };

export interface McpTargetContext {
  app: AppContext['app'];
  org: AppContext['org'] | null;
}

async function summarizeClient(provider: Provider, clientId: string): Promise<ClientSummary | undefined> {
  let client: Awaited<ReturnType<Provider['Client']['find']>>;
  try {
    client = await provider.Client.find(clientId);
  } catch {
    return undefined; // a CIMD document that cannot be fetched or is refused
  }
  if (!client) return undefined;
  const kind = clientKindOf(client);
  if (!kind) return undefined;
  const redirectUris = [...(client.redirectUris ?? [])];
  return {
    id: client.clientId,
    kind,
    name: client.clientName ?? client.clientId,
    redirectUris,
    appId: (client as unknown as PorticoClient).portico_app_id ?? null,
    metadata: { client_name: client.clientName, redirect_uris: redirectUris, ...(client.clientUri ? { client_uri: client.clientUri } : {}) },
  };
}

export async function findSignInTarget(db: Database, provider: Provider, issuer: string, params: Record<string, unknown>): Promise<SignInTarget> {
  const clientId = typeof params.client_id === 'string' ? params.client_id : '';
  const client = clientId ? await summarizeClient(provider, clientId) : undefined;
  if (!client) return { kind: 'unknown_client' };

  if (policyOfKind(client.kind).firstParty) {
    const context = await findAppSignInContext(db, client.id);
    if (!context) return { kind: 'unknown_client' };
    return context.appDisabled ? { kind: 'refused', reason: 'app_disabled', client, context } : { kind: 'app_client', client, context };
  }

  const resolution = await resolveClientResource(db, client, params.resource, porticoApiResource(issuer));
  if (!resolution.ok) {
    // Show the app when it is known (another app's resource, a revoked client): the person sees what was refused.
    const appId = policyOfKind(client.kind).servesOneApp ? client.appId : undefined;
    return { kind: 'refused', reason: resolution.reason, client, context: appId ? await findAppContext(db, appId) : undefined };
  }
  const { target, resource } = resolution;
  // RFC 6749 §3.3: Portico's own API has no default scope, a request must name one of its scopes. An app's
  // resource does: a request naming none of its permissions asks for all the person holds there (docs/permissions.md)
  // — as long as it names some scope Portico knows (OpenID Connect's at least), or there would be nothing to grant.
  const requestedScopes = new Set(String(params.scope ?? '').split(' '));
  const resourceScopes: readonly string[] = target.kind === 'app' ? [...(await appResourceScopes(db, target.app.id)), ...OIDC_SCOPES] : PORTICO_API_SCOPES;
  if (!resourceScopes.some((scope) => requestedScopes.has(scope))) {
    return { kind: 'refused', reason: 'no_scope', client, context: target.kind === 'app' ? await findAppContext(db, target.app.id) : undefined };
  }
  if (target.kind === 'portico') {
    // Portico's own API: Portico's header and brand, no organization.
    const context = { app: { id: 'portico', name: 'Portico', avatarUrl: null, publishOrigin: issuer, descriptions: {} }, org: null };
    return { kind: 'mcp_client', client, context, target, resource };
  }
  const context = await findAppContext(db, target.app.id);
  if (!context) return { kind: 'unknown_client' };
  return { kind: 'mcp_client', client, context, target, resource };
}

/**
 * True when every redirect URI is on localhost: whoever runs a program on the person's computer receives the
 * code, so the client's name proves nothing and the consent screen says so.
 */
export function redirectsOnlyToLocalhost(redirectUris: string[]): boolean {
  return (
    redirectUris.length > 0 &&
    redirectUris.every((uri) => {
      try {
        return ['localhost', '127.0.0.1', '[::1]'].includes(new URL(uri).hostname);
      } catch {
        return false;
      }
    })
  );
}
