// The installation's trust policy for client ID metadata documents (PORTICO_CIMD_ALLOWED_HOSTS / _BLOCKED_HOSTS):
// a host outside it is refused before anything is fetched, at every endpoint that reads the client.
import { describe, expect, it } from 'vitest';
import { cimdConfiguration, cimdHostAllowed } from '../../lib/oidc/cimd';
import { useProviderHarness } from '../support/provider-harness';

const POLICY = { allowed: ['*.trusted.test', 'tools.example'], blocked: ['bad.trusted.test'] };

describe('client ID metadata documents: the host policy', () => {
  const suite = useProviderHarness({ cimdHosts: POLICY });

  it('matches hosts and subdomains, blocked first, everything when nothing is listed', () => {
    expect(cimdHostAllowed('https://app.trusted.test/client.json', POLICY)).toBe(true);
    expect(cimdHostAllowed('https://tools.example/mcp/client', POLICY)).toBe(true);
    // *.trusted.test is its subdomains, not the domain itself nor a look-alike.
    expect(cimdHostAllowed('https://trusted.test/client.json', POLICY)).toBe(false);
    expect(cimdHostAllowed('https://eviltrusted.test/client.json', POLICY)).toBe(false);
    expect(cimdHostAllowed('https://sub.tools.example/client', POLICY)).toBe(false);
    expect(cimdHostAllowed('https://bad.trusted.test/client.json', POLICY)).toBe(false);
    expect(cimdHostAllowed('https://bad.trusted.test./client.json', POLICY)).toBe(false);
    expect(cimdHostAllowed('https://BAD.trusted.test../client.json', POLICY)).toBe(false);
    expect(cimdHostAllowed('https://anywhere.example/client.json', { allowed: [], blocked: [] })).toBe(true);
    expect(cimdHostAllowed('https://anywhere.example/client.json', { allowed: [], blocked: ['anywhere.example'] })).toBe(false);
  });

  it('the provider refuses a document host outside the policy before fetching, also for a cached document', async () => {
    const token = (clientId: string) =>
      fetch(`${suite.harness.issuer}/oidc/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_id: clientId }) }).then(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, string> }));
    for (const blocked of ['https://bad.trusted.test/client.json', 'https://elsewhere.example/client.json']) {
      // 401, as for any client the token endpoint does not know (deviation 9): an MCP client registers again.
      expect(await token(blocked)).toMatchObject({ status: 401, body: { error: 'invalid_client', error_description: 'client_id metadata document fetch not allowed' } });
    }
    // An allowed host is fetched (here it cannot be reached: a different refusal, after the policy let it through).
    expect((await token('https://app.trusted.test/client.json')).body.error_description).not.toBe('client_id metadata document fetch not allowed');
    // A document already cached is checked again (allowClient), not only at fetch time.
    const feature = cimdConfiguration(POLICY) as unknown as { allowClient(ctx: unknown, client: Record<string, unknown>): Promise<boolean> };
    const document = { clientId: 'https://bad.trusted.test/client.json', tokenEndpointAuthMethod: 'none', redirectUris: ['http://127.0.0.1:4000/cb'] };
    expect(await feature.allowClient(undefined, document)).toBe(false);
    expect(await feature.allowClient(undefined, { ...document, clientId: 'https://app.trusted.test/client.json' })).toBe(true);
  });
});
