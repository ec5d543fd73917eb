import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRegistrationLimits, checkRegisteredRedirectUri, registerClient, validateRegistration } from '../../lib/clients/registration';
import { loadClientMetadata } from '../../lib/clients/client-metadata';
import { clients } from '../../lib/db/schema';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { startProviderHarness, type Harness } from '../support/provider-harness';

describe('dynamic client registration: metadata (RFC 7591, RFC 8252)', () => {
  it.each([
    'https://client.example/cb',
    'http://127.0.0.1:33418/callback',
    'http://localhost:8080/cb',
    'http://[::1]:9/cb',
    'http://127.0.0.1/cb',
    'com.example.app:/oauth2redirect',
  ])('accepts the redirect URI %s', (uri) => {
    expect(checkRegisteredRedirectUri(uri)).toBeUndefined();
  });

  it.each([
    ['javascript:alert(1)', /private-use scheme/],
    ['http://client.example/cb', /localhost, 127.0.0.1 or \[::1\] only/],
    ['https://client.example/cb#frag', /fragment/],
    ['https://user:pw@client.example/cb', /credentials/],
    ['myapp:/cb', /reverse-domain/],
    ['data:text/html,hi', /private-use scheme/],
    ['not a uri', /absolute URI/],
    ['http://127.0.0.2:80/cb', /localhost, 127.0.0.1 or \[::1\] only/],
    ['http://app.localhost/cb', /localhost, 127.0.0.1 or \[::1\] only/],
    [42, /non-empty string/],
  ])('refuses the redirect URI %s', (uri, message) => {
    expect(checkRegisteredRedirectUri(uri)).toMatch(message);
  });

  it('honours application_type (MCP 2026-07-28): derived from the redirect URIs when absent, refused when it does not fit them', () => {
    const loopback = ['http://127.0.0.1:4999/callback'];
    expect(validateRegistration({ redirect_uris: loopback })).toMatchObject({ metadata: { application_type: 'native' } });
    expect(validateRegistration({ redirect_uris: ['https://client.example/cb'] })).toMatchObject({ metadata: { application_type: 'web' } });
    expect(validateRegistration({ redirect_uris: loopback, application_type: 'native' })).toMatchObject({ metadata: { application_type: 'native' } });
    // A native app may claim an https URL; a web client may not redirect to loopback http.
    expect(validateRegistration({ redirect_uris: ['https://client.example/cb'], application_type: 'native' })).toMatchObject({ metadata: { application_type: 'native' } });
    expect(validateRegistration({ redirect_uris: loopback, application_type: 'web' })).toMatchObject({ error: 'invalid_redirect_uri' });
    expect(validateRegistration({ redirect_uris: loopback, application_type: 'desktop' })).toMatchObject({ error: 'invalid_client_metadata', error_description: 'application_type must be "web" or "native"' });
  });

  it('answers in RFC 7591 error shape for bad metadata', () => {
    expect(validateRegistration([])).toMatchObject({ error: 'invalid_client_metadata' });
    expect(validateRegistration({})).toMatchObject({ error: 'invalid_redirect_uri' });
    expect(validateRegistration({ redirect_uris: 'https://x.example/cb' })).toMatchObject({ error: 'invalid_redirect_uri' });
    expect(validateRegistration({ redirect_uris: ['https://x.example/cb'], token_endpoint_auth_method: 'client_secret_basic' })).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: expect.stringContaining('public'),
    });
    expect(validateRegistration({ redirect_uris: ['https://x.example/cb'], grant_types: ['client_credentials'] })).toMatchObject({ error: 'invalid_client_metadata' });
    expect(validateRegistration({ redirect_uris: ['https://x.example/cb'], response_types: ['token'] })).toMatchObject({ error: 'invalid_client_metadata' });
    expect(validateRegistration({ redirect_uris: ['https://x.example/cb'], client_name: 7 })).toMatchObject({ error: 'invalid_client_metadata' });
    expect(validateRegistration({ redirect_uris: ['https://x.example/cb'], logo_uri: 'javascript:x' })).toMatchObject({ error: 'invalid_client_metadata' });
    expect(validateRegistration({ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://x.example/${i}`) })).toMatchObject({ error: 'invalid_redirect_uri' });
    expect(validateRegistration({ redirect_uris: ['https://x.example/cb', 'http://127.0.0.1:1/cb'] })).toMatchObject({ error: 'invalid_redirect_uri' });
    expect(validateRegistration({ redirect_uris: ['https://x.example/cb', 'https://x.example/cb'] })).toMatchObject({ redirectUris: ['https://x.example/cb'] });
    expect(validateRegistration({ redirect_uris: ['https://x.example/cb'], client_name: 'Claude', unknown_field: true })).toMatchObject({
      clientName: 'Claude',
      grantTypes: ['authorization_code', 'refresh_token'],
    });
  });
});

describe('dynamic client registration: storage and limits', () => {
  let database: TestDatabase;
  let harness: Harness;
  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
  });
  afterAll(async () => {
    await harness?.close();
    await database?.close();
  });

  it('registers a public client that oidc-provider can load, with no secret', async () => {
    const valid = validateRegistration({ redirect_uris: ['http://127.0.0.1:5000/cb'], client_name: 'Inspector' });
    if ('error' in valid) throw new Error(valid.error_description);
    const response = await registerClient(database.db, valid, '192.0.2.9');
    expect(response).toMatchObject({ token_endpoint_auth_method: 'none', client_name: 'Inspector', redirect_uris: ['http://127.0.0.1:5000/cb'] });
    expect(response).not.toHaveProperty('client_secret');
    const metadata = await loadClientMetadata(database.db, String(response.client_id), 'placeholder');
    expect(metadata).toMatchObject({ token_endpoint_auth_method: 'none', portico_kind: 'dynamic', redirect_uris: ['http://127.0.0.1:5000/cb'] });
    expect(metadata).not.toHaveProperty('client_secret');
  });

  it('oidc-provider accepts every kind of redirect URI registration allows (web and native clients)', async () => {
    for (const uris of [['com.example.app:/cb'], ['http://127.0.0.1:5000/cb', 'http://localhost/cb'], ['https://x.example/cb']]) {
      const valid = validateRegistration({ redirect_uris: uris });
      if ('error' in valid) throw new Error(valid.error_description);
      const response = await registerClient(database.db, valid, '192.0.2.10');
      const client = await harness.provider.Client.find(String(response.client_id));
      expect(client?.applicationType).toBe(uris[0]!.startsWith('https:') ? 'web' : 'native');
      for (const uri of uris) expect(client?.redirectUriAllowed(uri)).toBe(true);
    }
    // RFC 8252 §7.3: a native client's loopback redirect may use any port.
    const loopback = validateRegistration({ redirect_uris: ['http://127.0.0.1:5000/cb'] });
    if ('error' in loopback) throw new Error(loopback.error_description);
    const registered = await registerClient(database.db, loopback, '192.0.2.10');
    const client = await harness.provider.Client.find(String(registered.client_id));
    expect(client?.redirectUriAllowed('http://127.0.0.1:61234/cb')).toBe(true);
    expect(client?.redirectUriAllowed('http://127.0.0.1:61234/other')).toBe(false);
  });

  it('the answer states every registered value, defaults included: exactly what oidc-provider loads for the client (RFC 7591 §3.2.1)', async () => {
    const bodies = [
      { redirect_uris: ['http://127.0.0.1:5000/cb'] },
      { redirect_uris: ['https://x.example/cb'], client_name: 'Web', client_uri: 'https://x.example', backchannel_logout_uri: 'https://x.example/logout', backchannel_logout_session_required: true },
      { grant_types: ['urn:ietf:params:oauth:grant-type:device_code'], redirect_uris: ['http://localhost:1/cb'], response_types: ['code'], id_token_signed_response_alg: 'ES256' },
    ];
    for (const body of bodies) {
      const response = await fetch(`${harness.issuer}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(response.status).toBe(201);
      const { client_id_issued_at: issuedAt, ...answer } = (await response.json()) as Record<string, unknown>;
      expect(issuedAt).toEqual(expect.any(Number));
      const client = await harness.provider.Client.find(String(answer.client_id));
      const loaded = Object.fromEntries(Object.entries(client!.metadata()).filter(([name]) => !name.startsWith('portico_')));
      expect(answer).toEqual(loaded);
      // OpenID Connect Registration §2: RS256 unless the client asked for another algorithm Portico signs with.
      expect(answer.id_token_signed_response_alg).toBe('id_token_signed_response_alg' in body ? body.id_token_signed_response_alg : 'RS256');
      // Stored with the client, not left to the provider's defaults, which may change under registered clients.
      const [row] = await database.db.select({ metadata: clients.metadata }).from(clients).where(eq(clients.id, String(answer.client_id)));
      expect(row!.metadata).toMatchObject({ id_token_signed_response_alg: answer.id_token_signed_response_alg, subject_type: 'public', post_logout_redirect_uris: [] });
    }
  });

  it('an ID token algorithm Portico does not sign with is refused, naming the field', () => {
    for (const alg of ['HS256', 'none', 'PS256', 42]) {
      expect(validateRegistration({ redirect_uris: ['https://x.example/cb'], id_token_signed_response_alg: alg })).toEqual({
        error: 'invalid_client_metadata',
        error_description: 'id_token_signed_response_alg must be "ES256" or "RS256"',
      });
    }
  });

  it('a client may register a back-channel logout URI (OpenID Connect Back-Channel Logout 1.0 §2.2), validated', async () => {
    const base = { redirect_uris: ['https://x.example/cb'] };
    for (const bad of [
      { backchannel_logout_uri: 'http://x.example/logout' },
      { backchannel_logout_uri: 'https://x.example/logout#frag' },
      { backchannel_logout_uri: 'https://user:pw@x.example/logout' },
      { backchannel_logout_uri: 42 },
      { backchannel_logout_uri: `https://x.example/${'a'.repeat(2000)}` },
      { backchannel_logout_uri: 'https://x.example/logout', backchannel_logout_session_required: 'yes' },
      { backchannel_logout_session_required: true },
    ]) {
      expect(validateRegistration({ ...base, ...bad }), JSON.stringify(bad).slice(0, 80)).toMatchObject({ error: 'invalid_client_metadata' });
    }
    const valid = validateRegistration({ ...base, backchannel_logout_uri: 'https://x.example/logout?from=portico', backchannel_logout_session_required: true });
    if ('error' in valid) throw new Error(valid.error_description);
    const response = await registerClient(database.db, valid, '192.0.2.11');
    expect(response).toMatchObject({ backchannel_logout_uri: 'https://x.example/logout?from=portico', backchannel_logout_session_required: true });
    expect(await loadClientMetadata(database.db, String(response.client_id), 'placeholder')).toMatchObject({ backchannel_logout_uri: 'https://x.example/logout?from=portico', backchannel_logout_session_required: true });
  });

  it('holds the per-IP limit and the global cap exactly under concurrency', async () => {
    const limits = { perIp: { name: 'dcr-test:ip', limit: 5, windowSeconds: 3600 }, global: { name: 'dcr-test:global', limit: 8, windowSeconds: 3600 } };
    const oneIp = await Promise.all(Array.from({ length: 9 }, () => checkRegistrationLimits(database.db, limits, '198.51.100.1')));
    expect(oneIp.filter((outcome) => outcome === undefined)).toHaveLength(5);
    expect(oneIp.find((outcome) => outcome !== undefined)).toMatchObject({ kind: 'limited', retryAfterSeconds: expect.any(Number) });
    // Only the 5 the per-IP limit let through count globally: of 6 more from fresh IPs, 3 pass the global cap of 8.
    const spread = await Promise.all(Array.from({ length: 6 }, (_, i) => checkRegistrationLimits(database.db, limits, `203.0.113.${i}`)));
    expect(spread.filter((outcome) => outcome === undefined)).toHaveLength(3);
  });
});
