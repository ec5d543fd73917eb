import { describe, expect, it } from 'vitest';
import { EnvError, parseEnv } from '../../lib/env';
import { isLoopbackHost } from '../../lib/http/loopback-host';

function problemsOf(source: Record<string, string>): string[] {
  try {
    parseEnv(source);
  } catch (error) {
    if (error instanceof EnvError) return error.problems;
    throw error;
  }
  return [];
}

describe('configuration', () => {
  it('defaults to a local demo on the embedded database', () => {
    const env = parseEnv({});
    expect(env.PORTICO_ISSUER).toBe('http://localhost:3000');
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.listenHosts).toEqual(['127.0.0.1', '::1']);
    expect(env.listenPort).toBe(3000);
    expect(env.issuerIsHttps).toBe(false);
    expect(env.PORTICO_DEMO_SEED).toBe(true);
  });

  it('runs one server process unless told otherwise, several only on PostgreSQL', () => {
    expect(parseEnv({}).workers).toBe(1);
    const postgres = { DATABASE_URL: 'postgres://db.internal/portico' };
    expect(parseEnv({ ...postgres, PORTICO_WORKERS: '3' }).workers).toBe(3);
    expect(parseEnv({ ...postgres, PORTICO_WORKERS: 'auto' }).workers).toBeGreaterThanOrEqual(1);
    expect(problemsOf({ PORTICO_WORKERS: '2' })[0]).toMatch(/^PORTICO_WORKERS: 2 needs PostgreSQL \(set DATABASE_URL\): the embedded database belongs to one server process/);
    expect(problemsOf({ PORTICO_WORKERS: 'auto' })[0]).toMatch(/^PORTICO_WORKERS: auto needs PostgreSQL/);
    expect(problemsOf({ ...postgres, PORTICO_WORKERS: '0' })[0]).toMatch(/^PORTICO_WORKERS: must be a whole number from 1 to 999, or auto/);
    expect(problemsOf({ ...postgres, PORTICO_WORKERS: 'many' })[0]).toMatch(/^PORTICO_WORKERS: must be/);
  });

  it('takes DNS servers for domain checks as IP addresses with an optional port, and refuses a host name at start', () => {
    expect(parseEnv({}).PORTICO_DNS_SERVERS).toEqual([]);
    expect(parseEnv({ PORTICO_DNS_SERVERS: '192.0.2.53, 192.0.2.54:5353,[2001:db8::53]:53,2001:db8::54' }).PORTICO_DNS_SERVERS).toEqual(['192.0.2.53', '192.0.2.54:5353', '[2001:db8::53]:53', '2001:db8::54']);
    for (const bad of ['dns.example', '192.0.2.53:99999', '[dns.example]:53', '192.0.2.53;rm']) {
      expect(problemsOf({ PORTICO_DNS_SERVERS: bad })[0], bad).toMatch(/^PORTICO_DNS_SERVERS: must be DNS server IP addresses/);
    }
  });

  it('listens on PORTICO_PORT, else a loopback issuer’s own port, else the platform’s PORT, else 3000', () => {
    const platform = 'https://id.example.com';
    expect(parseEnv({ PORTICO_ISSUER: platform }).listenPort).toBe(3000);
    expect(parseEnv({ PORTICO_ISSUER: platform, PORT: '8080' }).listenPort).toBe(8080);
    expect(parseEnv({ PORTICO_ISSUER: platform, PORT: '8080', PORTICO_PORT: '9090' }).listenPort).toBe(9090);
    // A local run keeps its issuer's port whatever PORT a shell left behind.
    expect(parseEnv({ PORTICO_ISSUER: 'http://localhost:3400', PORT: '8080' }).listenPort).toBe(3400);
    // An empty value from an env file is unset.
    expect(parseEnv({ PORTICO_ISSUER: platform, PORT: '', PORTICO_PORT: '' }).listenPort).toBe(3000);
    expect(problemsOf({ PORT: 'eighty' })[0]).toMatch(/^PORT: /);
  });

  it('takes the allowed networks as CIDR networks, single addresses and host names, and refuses anything else at start', () => {
    expect(parseEnv({}).outboundAllowedNetworks).toEqual({ networks: [], hosts: [] });
    expect(parseEnv({ PORTICO_OUTBOUND_ALLOWED_NETWORKS: '10.0.0.0/8, 10.1.2.3, FD00::/8, [::1], Hooks.Corp.Example, *.intranet.example' }).outboundAllowedNetworks).toEqual({
      networks: ['10.0.0.0/8', '10.1.2.3/32', 'fd00::/8', '::1/128'],
      hosts: ['hooks.corp.example', '*.intranet.example'],
    });
    for (const bad of ['10.0.0.0/33', 'https://hooks.example', '10.0.0.0/x', 'hooks example', '*']) {
      expect(problemsOf({ PORTICO_OUTBOUND_ALLOWED_NETWORKS: bad })[0], bad).toMatch(/^PORTICO_OUTBOUND_ALLOWED_NETWORKS: ".*" is not a network/);
    }
  });

  it('takes the client ID metadata document host policy as host patterns, and refuses anything else at start', () => {
    expect(parseEnv({}).PORTICO_CIMD_ALLOWED_HOSTS).toEqual([]);
    expect(parseEnv({ PORTICO_CIMD_ALLOWED_HOSTS: 'Tools.Example, *.mcp.example' }).PORTICO_CIMD_ALLOWED_HOSTS).toEqual(['tools.example', '*.mcp.example']);
    for (const bad of ['https://tools.example', 'tools.example/path', '*', 'a*.example']) {
      expect(problemsOf({ PORTICO_CIMD_BLOCKED_HOSTS: bad })[0], bad).toMatch(/^PORTICO_CIMD_BLOCKED_HOSTS: must be host names/);
    }
  });

  it('allows outbound loopback only when asked, under the new name or the old one', () => {
    expect(parseEnv({}).outboundAllowLoopback).toBe(false);
    expect(parseEnv({ PORTICO_OUTBOUND_ALLOW_LOOPBACK: 'true' }).outboundAllowLoopback).toBe(true);
    expect(parseEnv({ PORTICO_CIMD_ALLOW_LOOPBACK: 'true' }).outboundAllowLoopback).toBe(true);
  });

  it('reads the mail settings: an SMTP URL or the development outbox, and a sender', () => {
    expect(parseEnv({}).PORTICO_SMTP_URL).toBeUndefined();
    expect(parseEnv({}).PORTICO_MAIL_FROM).toBe('Portico <no-reply@localhost>');
    expect(parseEnv({ PORTICO_SMTP_URL: 'smtps://u:p@smtp.example.com:465' }).PORTICO_SMTP_URL).toBe('smtps://u:p@smtp.example.com:465');
    expect(problemsOf({ PORTICO_SMTP_URL: 'http://smtp.example.com' })[0]).toMatch(/^PORTICO_SMTP_URL: must be an SMTP URL/);
    expect(problemsOf({ PORTICO_MAIL_FROM: 'not an address' })[0]).toMatch(/^PORTICO_MAIL_FROM:/);
    expect(problemsOf({ PORTICO_INVITATION_DAYS: '90' })[0]).toMatch(/^PORTICO_INVITATION_DAYS: must be between 1 and 30/);
  });

  it('refuses a plain-http issuer on a non-loopback host, naming the variable and TLS', () => {
    const problems = problemsOf({ PORTICO_ISSUER: 'http://example.com' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^PORTICO_ISSUER: /);
    expect(problems[0]).toMatch(/TLS/);
  });

  it.each(['http://localhost:3000', 'http://127.0.0.1:8080', 'http://127.10.0.1', 'http://[::1]:3000', 'https://id.example.com'])(
    'accepts the issuer %s',
    (issuer) => {
      expect(problemsOf({ PORTICO_ISSUER: issuer })).toEqual([]);
    },
  );

  it('rejects an issuer with a path, a query or credentials', () => {
    for (const issuer of ['https://id.example.com/tenant', 'https://id.example.com/?x=1', 'https://user:pw@id.example.com']) {
      expect(problemsOf({ PORTICO_ISSUER: issuer })[0]).toMatch(/bare origin/);
    }
  });

  it('rejects a malformed DATABASE_URL with a message that says what is expected', () => {
    const problems = problemsOf({ DATABASE_URL: 'not a url' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^DATABASE_URL: must be a PostgreSQL URL/);
    expect(problemsOf({ DATABASE_URL: 'mysql://127.0.0.1/db' })[0]).toMatch(/^DATABASE_URL/);
  });

  it('treats an empty DATABASE_URL as unset', () => {
    expect(parseEnv({ DATABASE_URL: '' }).DATABASE_URL).toBeUndefined();
  });

  it('checks the secret key format and says how to generate one', () => {
    expect(problemsOf({ PORTICO_SECRET_KEY: 'short' })[0]).toMatch(/^PORTICO_SECRET_KEY: .*randomBytes\(32\)/);
    expect(problemsOf({ PORTICO_SECRET_KEY: 'A'.repeat(43) })).toEqual([]);
  });

  it('defaults approvals to the link with the central on and no framing; checks the surface and the frame ancestors', () => {
    const defaults = parseEnv({});
    expect(defaults.PORTICO_APPROVAL_SURFACE).toBe('link');
    expect(defaults.PORTICO_CENTRAL_ENABLED).toBe(true);
    expect(defaults.PORTICO_OPERATOR_FRAME_ANCESTORS).toEqual([]);
    expect(problemsOf({ PORTICO_APPROVAL_SURFACE: 'iframe' })[0]).toMatch(/^PORTICO_APPROVAL_SURFACE: must be link or adaptive/);
    expect(parseEnv({ PORTICO_OPERATOR_FRAME_ANCESTORS: 'https://chat.example, https://sandbox.chat.example:8443  https://chat.example' }).PORTICO_OPERATOR_FRAME_ANCESTORS).toEqual([
      'https://chat.example',
      'https://sandbox.chat.example:8443',
    ]);
    // https only, exact origins: no wildcard, no path, no plain http (not even on loopback), nothing that is not a URL.
    for (const bad of ['https://*.chat.example', 'http://127.0.0.1:4996', 'https://chat.example/app', '*', "'self'", 'chat.example']) {
      expect(problemsOf({ PORTICO_OPERATOR_FRAME_ANCESTORS: bad })[0], bad).toMatch(/^PORTICO_OPERATOR_FRAME_ANCESTORS: .*not an https origin/);
    }
  });

  it('names the allowed range when a number is out of it, not "must be a number"', () => {
    expect(problemsOf({ PORTICO_DCR_PER_IP_PER_HOUR: '1000000' })).toEqual(['PORTICO_DCR_PER_IP_PER_HOUR: must be between 1 and 100000']);
    expect(problemsOf({ DATABASE_POOL_SIZE: '0' })).toEqual(['DATABASE_POOL_SIZE: must be between 1 and 500']);
    expect(problemsOf({ PORTICO_DCR_GLOBAL_PER_HOUR: 'many' })).toEqual(['PORTICO_DCR_GLOBAL_PER_HOUR: must be a number']);
  });

  it('reports every bad variable at once', () => {
    const problems = problemsOf({ PORTICO_ISSUER: 'ftp://x', PORTICO_PORT: 'abc', PORTICO_DEMO_PASSWORD: 'short' });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['PORTICO_DEMO_PASSWORD', 'PORTICO_ISSUER', 'PORTICO_PORT']);
  });

  it("points the demo app at Portico's own stand-in callback unless told otherwise", () => {
    expect(parseEnv({ PORTICO_ISSUER: 'https://id.example.com' }).PORTICO_DEMO_REDIRECT_URI).toBe('https://id.example.com/demo/callback');
    expect(parseEnv({ PORTICO_DEMO_REDIRECT_URI: 'http://127.0.0.1:4000/cb' }).PORTICO_DEMO_REDIRECT_URI).toBe('http://127.0.0.1:4000/cb');
    expect(problemsOf({ PORTICO_DEMO_REDIRECT_URI: 'http://app.example.com/cb' })[0]).toMatch(/^PORTICO_DEMO_REDIRECT_URI/);
  });

  it('listens on all interfaces for a public issuer', () => {
    const env = parseEnv({ PORTICO_ISSUER: 'https://id.example.com' });
    expect(env.listenHosts).toEqual(['0.0.0.0']);
    expect(env.listenPort).toBe(3000);
    expect(env.issuerIsHttps).toBe(true);
  });

  it('knows loopback hosts (RFC 8252 §7.3)', () => {
    expect(['localhost', '127.0.0.1', '127.255.0.9', '[::1]', 'app.localhost'].every(isLoopbackHost)).toBe(true);
    expect(['example.com', '10.0.0.1', '128.0.0.1', 'localhost.example.com', '::2'].some(isLoopbackHost)).toBe(false);
  });
});
