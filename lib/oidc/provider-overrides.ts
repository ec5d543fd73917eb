// Where Portico adapts oidc-provider's internals. Everything else is configuration, hooks and the adapter.
//
// Upstream: oidc-provider 9.x, lib/models/client.js `compareClientSecret` and lib/shared/client_auth.js.
//
// Deviation 1 — client secrets are verified against hashes, not compared in plaintext.
//   Upstream compares the presented secret with the single plaintext `client_secret` of the client's metadata.
//   Portico stores only SHA-256 hashes of client secrets (client_secrets table) and may hold more than one valid
//   secret per client during a rotation's overlap window. The client metadata therefore carries a random
//   placeholder that nothing can present (lib/clients/client-metadata.ts), and `compareClientSecret` is replaced
//   by a check against the stored hashes (lib/clients/secrets.ts). HS* algorithms are disabled in the provider's
//   configuration, so the placeholder is never used as a symmetric key either.
import type Provider from 'oidc-provider';
import type { Database } from '../db/client';
import { verifyClientSecret } from '../clients/secrets';

export function applyProviderOverrides(provider: Provider, db: () => Database): void {
  const clientPrototype = provider.Client.prototype as unknown as {
    clientId: string;
    compareClientSecret(actual: string): Promise<boolean>;
  };
  clientPrototype.compareClientSecret = async function compareClientSecret(actual: string) {
    if (typeof actual !== 'string' || actual.length === 0 || actual.length > 512) return false;
    return verifyClientSecret(db(), this.clientId, actual);
  };
}
