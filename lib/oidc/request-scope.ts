// One AsyncLocalStorage scope per provider request, for the few places where Portico adapts oidc-provider's models
// (lib/oidc/provider-overrides.ts) and needs to know about the request they run in:
// - which refresh token the request is rotating (the adapter notes it when it consumes the token; the save of its
//   successor reads it);
// - the request's context itself (an access token's save reads the grant and the exchanged code or refresh token).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { KoaContextWithOIDC } from 'oidc-provider';

interface ProviderRequestScope {
  ctx: KoaContextWithOIDC;
  rotatedFrom?: string;
  /** The secrets valid now of the clients this request loaded, by client id (lib/clients/client-metadata.ts). */
  clientSecretHashes?: Map<string, readonly string[]>;
}

const scope = new AsyncLocalStorage<ProviderRequestScope>();

/** Runs one provider request in a scope of its own. */
export function inProviderRequestScope<T>(ctx: KoaContextWithOIDC, work: () => Promise<T>): Promise<T> {
  return scope.run({ ctx }, work);
}

/** The provider request this code runs in, if any. */
export function currentProviderContext(): KoaContextWithOIDC | undefined {
  return scope.getStore()?.ctx;
}

/** The adapter consumed this refresh token (or accepted its replay inside the grace interval). */
export function noteRefreshTokenRotated(id: string): void {
  const store = scope.getStore();
  if (store) store.rotatedFrom = id;
}

/** The adapter loaded this client, with the hashes of its secrets valid at that moment. */
export function noteClientSecrets(clientId: string, hashes: readonly string[]): void {
  const store = scope.getStore();
  if (!store) return;
  store.clientSecretHashes ??= new Map();
  store.clientSecretHashes.set(clientId, hashes);
}

/** The hashes noted for this client in this request: undefined when it was not loaded here (ask the database). */
export function notedClientSecrets(clientId: string): readonly string[] | undefined {
  return scope.getStore()?.clientSecretHashes?.get(clientId);
}

/** The refresh token this request is rotating, if any. */
export function refreshTokenBeingRotated(): string | undefined {
  return scope.getStore()?.rotatedFrom;
}
