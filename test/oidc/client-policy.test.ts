// The client kinds as one table: each entry, and the reading of a client's kind (a metadata document cannot claim
// to be anything else).
import { describe, expect, it } from 'vitest';
import { CLIENT_POLICIES, clientKindOf, clientPolicyOf } from '../../lib/oidc/client-policy';

describe('client policy', () => {
  it('an app’s own client is first-party: its org, its app, the remembered grant, a refresh token only with offline_access', () => {
    const app = CLIENT_POLICIES.app;
    expect(app).toMatchObject({ firstParty: true, servesOneApp: true, mayReachPorticoApi: false, organizationFrom: 'client', resourceServerFrom: 'request', extraClaimsFrom: 'audience_app', revocationAtApp: 'not_applicable' });
    expect(app.issuesRefreshToken(true)).toBe(true);
    expect(app.issuesRefreshToken(false)).toBe(false);
  });

  it('MCP clients consent each time, are bound by their grant, and get a rotating refresh token when they registered the grant type', () => {
    for (const kind of ['external', 'dynamic', 'cimd'] as const) {
      const policy = CLIENT_POLICIES[kind];
      expect(policy).toMatchObject({ firstParty: false, organizationFrom: 'grant_binding', resourceServerFrom: 'grant_binding', extraClaimsFrom: 'grant_binding' });
      expect(policy.issuesRefreshToken(false)).toBe(true);
    }
    expect(CLIENT_POLICIES.external).toMatchObject({ servesOneApp: true, mayReachPorticoApi: false, revocationAtApp: 'client' });
    for (const kind of ['dynamic', 'cimd'] as const) expect(CLIENT_POLICIES[kind]).toMatchObject({ servesOneApp: false, mayReachPorticoApi: true, revocationAtApp: 'link' });
  });

  it('reads the kind from Portico’s metadata; a metadata document is CIMD whatever it claims; an unknown client has no policy', () => {
    expect(clientKindOf({ portico_kind: 'app' })).toBe('app');
    expect(clientKindOf({ portico_kind: 'app', clientIdMetadataDocument: true })).toBe('cimd');
    expect(clientKindOf({ portico_kind: 'root' })).toBeUndefined();
    expect(clientKindOf({ portico_kind: 'constructor' })).toBeUndefined();
    expect(clientPolicyOf(undefined)).toBeUndefined();
    expect(clientPolicyOf({ portico_kind: 'dynamic' })?.kind).toBe('dynamic');
  });
});
