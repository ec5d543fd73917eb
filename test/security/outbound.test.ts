// The one outbound-request guard: addresses checked before any connection, connection to the checked address only,
// no redirects, size and time caps, and answers that never tell one network error from another.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAllowedAddress, OutboundRefused, outboundRequest } from '../../lib/http/outbound';
import { surfaceVerificationFetch, verifyAppSurface } from '../../lib/clients/surface';
import { cimdFetch } from '../../lib/oidc/cimd';

/** A loopback listener that counts TCP connections, whatever happens after. */
async function listener(handler: (res: import('node:http').ServerResponse) => void = (res) => res.end('{}')): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((_req, res) => handler(res));
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, connections: () => connections };
}

const caps = { timeoutMs: 1500, maxBytes: 1024 };
const production = { allowLoopback: false };

describe('address classification', () => {
  it('allows public unicast only; loopback only with the development switch', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '192.0.2.1', '::1', '::', 'fd00::1', 'fd00:ec2::254', 'fe80::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '64:ff9b::7f00:1', '2002:7f00:1::1', '2001:db8::1', '::7f00:1', '::a9fe:a9fe', '::0a00:1']) {
      expect(isAllowedAddress(address, production), address).toBe(false);
    }
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isAllowedAddress(address, production), address).toBe(true);
    expect(isAllowedAddress('127.0.0.1', { allowLoopback: true })).toBe(true);
    expect(isAllowedAddress('::1', { allowLoopback: true })).toBe(true);
    expect(isAllowedAddress('10.0.0.1', { allowLoopback: true })).toBe(false);
  });
});

describe('the installation’s allowed networks (PORTICO_OUTBOUND_ALLOWED_NETWORKS), decided without connecting', () => {
  const intranet = (networks: string[], hosts: string[] = []) => ({ allowLoopback: false, allowedNetworks: { networks, hosts } });

  it('opens the private networks it names, and nothing else', () => {
    const policy = intranet(['10.0.0.0/8', 'fd00:1::/32', '100.64.0.0/10']);
    for (const address of ['10.1.2.3', '10.255.0.1', 'fd00:1::5', '100.64.1.1', '::ffff:10.1.2.3']) expect(isAllowedAddress(address, policy), address).toBe(true);
    for (const address of ['172.16.5.4', '192.168.1.1', 'fd00:2::5', '127.0.0.1', '169.254.1.1']) expect(isAllowedAddress(address, policy), address).toBe(false);
    // Public addresses stay allowed as before.
    expect(isAllowedAddress('8.8.8.8', policy)).toBe(true);
  });

  it('opens loopback, link-local and metadata addresses only when an entry names the address itself', () => {
    const wide = intranet(['127.0.0.0/8', '169.254.0.0/16', '0.0.0.0/0', '::/0', 'fd00::/8', 'fc00::/7', '100.64.0.0/10']);
    for (const address of ['127.0.0.1', '127.0.0.2', '169.254.169.254', '169.254.10.10', '::1', 'fe80::1', 'fd00:ec2::254', 'fd00:ec2::23', 'fd20:ce::254', 'fd00:c1::a9fe:a9fe', '100.100.100.200']) {
      expect(isAllowedAddress(address, wide), address).toBe(false);
    }
    const named = intranet(['127.0.0.2/32', '169.254.169.254/32', '::1/128']);
    for (const address of ['127.0.0.2', '169.254.169.254', '::1']) expect(isAllowedAddress(address, named), address).toBe(true);
    expect(isAllowedAddress('127.0.0.3', named)).toBe(false);
  });

  it('a host name opens the private addresses it resolves to, never loopback or metadata; nothing opens multicast or unspecified', () => {
    const policy = intranet([], ['hooks.corp.example', '*.intranet.example']);
    expect(isAllowedAddress('10.20.30.40', policy, 'hooks.corp.example')).toBe(true);
    expect(isAllowedAddress('10.20.30.40', policy, 'a.b.intranet.example')).toBe(true);
    expect(isAllowedAddress('10.20.30.40', policy, 'intranet.example')).toBe(false);
    expect(isAllowedAddress('10.20.30.40', policy, 'evilintranet.example')).toBe(false);
    expect(isAllowedAddress('10.20.30.40', policy, 'other.corp.example')).toBe(false);
    expect(isAllowedAddress('10.20.30.40', policy)).toBe(false);
    for (const address of ['127.0.0.1', '169.254.169.254', '::1']) expect(isAllowedAddress(address, policy, 'hooks.corp.example'), address).toBe(false);
    for (const address of ['224.0.0.1', '0.0.0.0', '255.255.255.255', 'ff02::1', '::']) expect(isAllowedAddress(address, intranet(['0.0.0.0/0', '::/0', `${address}/${address.includes(':') ? 128 : 32}`]), 'hooks.corp.example'), address).toBe(false);
  });

  it('refuses before connecting, and names the setting only for an intranet address', async () => {
    const resolveTo = (address: string) => async () => [{ address, family: address.includes(':') ? 6 : 4 }];
    const refusal = (url: string, policy: Parameters<typeof outboundRequest>[2]) => outboundRequest(url, caps, policy).then(() => undefined, (error: unknown) => error as OutboundRefused);
    expect((await refusal('https://hooks.corp.example/x', { allowLoopback: false, resolve: resolveTo('10.1.2.3') }))?.reason).toBe('private_network');
    expect((await refusal('https://10.1.2.3/x', { allowLoopback: false }))?.message).toContain('PORTICO_OUTBOUND_ALLOWED_NETWORKS');
    expect((await refusal('https://169.254.169.254/latest', { allowLoopback: false }))?.reason).toBe('address_not_allowed');
    // One address of a name outside the list refuses the whole name, as before.
    const mixed = { allowLoopback: false, allowedNetworks: { networks: ['10.0.0.0/8'], hosts: [] }, resolve: async () => [{ address: '10.1.2.3', family: 4 }, { address: '192.168.0.9', family: 4 }] };
    expect((await refusal('https://hooks.corp.example/x', mixed))?.reason).toBe('private_network');
  });
});

describe('outbound requests', () => {
  let silent: Awaited<ReturnType<typeof listener>>;
  let closedPort: number;
  beforeAll(async () => {
    silent = await listener(() => {}); // accepts, never answers
    const closed = await listener();
    closedPort = closed.port;
    await new Promise((resolve) => closed.server.close(resolve));
  });
  afterAll(() => new Promise((resolve) => silent.server.close(resolve)));

  it('never connects to loopback, by address or by name; a silent and a closed port get the same refusal', async () => {
    const attempts = [`http://127.0.0.1:${silent.port}/`, `http://localhost:${silent.port}/`, `http://[::1]:${silent.port}/`, `http://[::ffff:127.0.0.1]:${silent.port}/`, `http://127.0.0.1:${closedPort}/`];
    for (const url of attempts) {
      await expect(outboundRequest(url, caps, production), url).rejects.toMatchObject({ reason: 'address_not_allowed' });
    }
    expect(silent.connections()).toBe(0);
  });

  it('connects to the address it checked (no second lookup), and refuses a name that resolves to any special-use address', async () => {
    const app = await listener((res) => res.end('ok'));
    try {
      // A name the system cannot resolve: only the checked address can have been used.
      const pinned = { allowLoopback: true, resolve: async () => [{ address: '127.0.0.1', family: 4 }] };
      const answer = await outboundRequest(`http://rebinding.portico.invalid:${app.port}/`, caps, pinned);
      expect(await answer.text()).toBe('ok');
      // One public and one private address: refused whole, nothing connected.
      const mixed = { allowLoopback: false, resolve: async () => [{ address: '93.184.216.34', family: 4 }, { address: '127.0.0.1', family: 4 }] };
      const before = app.connections();
      await expect(outboundRequest(`http://mixed.portico.invalid:${app.port}/`, caps, mixed)).rejects.toMatchObject({ reason: 'address_not_allowed' });
      expect(app.connections()).toBe(before);
    } finally {
      app.server.close();
    }
  });

  it('follows no redirect, caps the size and the time, and says nothing of the network error', async () => {
    const target = await listener((res) => res.end('target'));
    const redirecting = await listener((res) => res.writeHead(302, { Location: `http://127.0.0.1:${target.port}/` }).end());
    const large = await listener((res) => res.end('x'.repeat(4096)));
    const dev = { allowLoopback: true };
    try {
      const redirected = await outboundRequest(`http://127.0.0.1:${redirecting.port}/`, caps, dev);
      expect(redirected.status).toBe(302);
      expect(target.connections()).toBe(0);
      await expect(outboundRequest(`http://127.0.0.1:${large.port}/`, caps, dev)).rejects.toMatchObject({ reason: 'too_large' });
      await expect(outboundRequest(`http://127.0.0.1:${silent.port}/`, { ...caps, timeoutMs: 300 }, dev)).rejects.toMatchObject({ reason: 'timeout' });
      const refused = await outboundRequest(`http://127.0.0.1:${closedPort}/`, caps, dev).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OutboundRefused);
      expect(String((refused as Error).message)).not.toMatch(/ECONN|EHOST|ENET/);
      await expect(outboundRequest('file:///etc/passwd', caps, dev)).rejects.toMatchObject({ reason: 'not_http' });
    } finally {
      for (const server of [target, redirecting, large]) server.server.close();
    }
  });
});

describe('the guard’s callers', () => {
  it('surface verification of a loopback publish origin connects to nothing and names no network error', async () => {
    const app = await listener((res) => res.writeHead(418).end());
    try {
      const verification = await verifyAppSurface({ publishOrigin: `http://127.0.0.1:${app.port}`, secret: 'pss_x', declaration: null }, surfaceVerificationFetch({ allowLoopback: false }));
      expect(verification.outcome).toBe('unreachable');
      expect(verification.detail).toContain('not a public internet address');
      // The status as a number of its own (the listener's port, in the detail's URL, may contain the digits).
      expect(verification.detail).not.toMatch(/(?<!\d)418(?!\d)|ECONN/);
      expect(app.connections()).toBe(0);
    } finally {
      app.server.close();
    }
  });

  it('oidc-provider’s fetch (metadata documents) goes through the guard, its own dispatcher set aside', async () => {
    const documents = await listener();
    try {
      const fetchDocument = cimdFetch({ allowLoopback: false });
      await expect(fetchDocument(`http://localhost:${documents.port}/client.json`, { dispatcher: undefined } as RequestInit)).rejects.toMatchObject({ reason: 'address_not_allowed' });
      expect(documents.connections()).toBe(0);
    } finally {
      documents.server.close();
    }
  });
});
