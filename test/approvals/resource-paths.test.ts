// Approval paths mean one thing: normalized once when a request is made, refused when they could be read two ways,
// and matched on whole segments by the broker and by the app kit alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeResourcePath, resourcePathCovers } from '../../app-kit/resource-path';
import { createApprovalRequest, decideApprovalRequest, findActiveGrant } from '../../lib/approvals/broker';
import { Refusal as ApprovalRefusal } from '../../lib/refusals/refusal';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { createMember, createOrgWithApp, type AppFixture } from '../support/provider-harness';

describe('resource paths', () => {
  it('refuse what a later decoding or a server would read differently, with the reason', () => {
    const refused: [string, RegExp][] = [
      ['/invoices/%2e%2e/salaries', /percent-encoded/],
      ['/invoices/%2E%2e', /percent-encoded/],
      ['/invoices%2f2026', /percent-encoded/],
      ['/invoices%5c2026', /percent-encoded/],
      ['/invoices/%00', /percent-encoded/],
      ['/invoices\\2026', /backslash/],
      ['/invoices//2026', /empty segments/],
      ['//invoices', /empty segments/],
      ['/invoices/../salaries', /\. or \.\. segments/],
      ['/invoices/./2026', /\. or \.\. segments/],
      ['/invoices/\u00852026', /control characters/],
      ['/invoices/\u0000', /control characters/],
      ['invoices', /absolute path/],
      ['', /1-512/],
      [`/${'a'.repeat(512)}`, /1-512/],
    ];
    for (const [path, reason] of refused) {
      const result = normalizeResourcePath(path);
      expect(result.ok, path).toBe(false);
      expect((result as { error: string }).error, path).toMatch(reason);
    }
    expect(normalizeResourcePath('/invoices/2026/')).toEqual({ ok: true, path: '/invoices/2026' });
    expect(normalizeResourcePath('/')).toEqual({ ok: true, path: '/' });
    expect(normalizeResourcePath('/files/r%C3%A9sum%C3%A9')).toEqual({ ok: true, path: '/files/r%C3%A9sum%C3%A9' });
  });

  it('cover whole segments only', () => {
    expect(resourcePathCovers('/invoices/2026', '/invoices/2026')).toBe(true);
    expect(resourcePathCovers('/invoices/2026', '/invoices/2026/03')).toBe(true);
    expect(resourcePathCovers('/invoices/2026', '/invoices/2026x')).toBe(false);
    expect(resourcePathCovers('/invoices/2026', '/invoices')).toBe(false);
    expect(resourcePathCovers('/', '/anything/at/all')).toBe(true);
  });
});

describe('the broker with paths', () => {
  let database: TestDatabase;
  let app: AppFixture;
  let subject: string;
  const operator = { type: 'operator_cli' as const, label: 'cli:test' };

  beforeAll(async () => {
    database = await openTestDatabase();
    app = await createOrgWithApp(database, 'Paths');
    subject = (await createMember(database, app.orgId, 'paths@example.test')).id;
  });
  afterAll(async () => database.close());

  const ask = (resource: string) =>
    createApprovalRequest(database.db, { orgId: app.orgId, appId: app.app.id, subjectUserId: subject, clientId: 'c', kind: 'sensitive_access', resource, profile: 'read', durationSeconds: 3600, reason: 'quarterly close' }, { type: 'person', id: subject });

  it('refuses a request whose path could name something else, and stores the normalized form', async () => {
    await expect(ask('/invoices/%2e%2e/salaries')).rejects.toThrow(ApprovalRefusal);
    await expect(ask('/invoices\\..\\salaries')).rejects.toThrow(/backslash/);
    await expect(ask('/invoices//2026')).rejects.toThrow(/empty segments/);
    const request = await ask('/invoices/2026/');
    expect(request.resource).toBe('/invoices/2026');
  });

  it('a grant on /invoices/2026 serves /invoices/2026/03, not /invoices/2026x nor an encoded escape', async () => {
    const request = await ask('/invoices/2026');
    await decideApprovalRequest(database.db, { requestId: request.id, decision: 'approve', fingerprint: request.fingerprint, channel: 'cli', decidedBy: 'cli:test', actor: operator });
    const check = (resource: string) => findActiveGrant(database.db, { appId: app.app.id, subjectUserId: subject, actor: '', kind: 'sensitive_access', resource, profile: 'read' });
    expect(await check('/invoices/2026')).toBeDefined();
    expect(await check('/invoices/2026/03')).toBeDefined();
    expect(await check('/invoices/2026/')).toBeDefined();
    expect(await check('/invoices/2026x')).toBeUndefined();
    expect(await check('/invoices/2026/%2e%2e/salaries')).toBeUndefined();
    expect(await check('/invoices/2026/../salaries')).toBeUndefined();
    expect(await check('/invoices/2026\\..\\salaries')).toBeUndefined();
  });
});

describe('the app kit’s grant check', () => {
  it('normalizes like the broker, and sends nothing for a path that could name something else', async () => {
    // A listener that records what the kit sends (any answer is "no grant" here).
    const { createServer } = await import('node:http');
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        bodies.push(body);
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"granted":false}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const { createAppKit } = await import('../../app-kit');
    const kit = createAppKit({ issuer, appIdentity: 'urn:portico:app:test', origin: 'https://kit.example', clientId: 'kit-client', surfaceSecret: 'k'.repeat(43) });
    try {
      expect(await kit.checkGrant({ subject: '00000000-0000-4000-8000-000000000000', kind: 'sensitive_access', resource: '/invoices/2026/%2e%2e/salaries', profile: 'read' })).toEqual({ granted: false });
      expect(bodies).toHaveLength(0);
      await kit.checkGrant({ subject: '00000000-0000-4000-8000-000000000000', kind: 'sensitive_access', resource: '/invoices/2026/', profile: 'read' });
      expect(bodies).toHaveLength(1);
      expect(JSON.parse(bodies[0]!)).toMatchObject({ resource: '/invoices/2026' });
    } finally {
      server.close();
    }
  });
});
