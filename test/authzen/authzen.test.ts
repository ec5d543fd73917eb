// Portico's AuthZEN decision point (issue 60), over real HTTP with plain fetch — the client the specification's own
// examples are (no AuthZEN client is maintained on the npm registry). The routes are Next's route handlers, served
// by a Node HTTP server of this file's with the runtime they read; the database is the suite's PostgreSQL.
// - The AuthZEN interop's Todo scenario (openid/authzen, interop/authzen-todo-backend, Authorization API 1.0
//   decisions): its five people, roles and todos seeded as an organization's teams, permissions and members; its 40
//   evaluation requests unchanged in shape (subject ids are Portico's `sub` instead of the interop's Dex ids) and
//   its three batches, compared byte for byte with the expected answers.
// - A denial of an approval_required tool leads, through the Access Request profile, to a request in the central,
//   true after an operator approves, and false again once the grant is revoked or has ended.
// - Who may ask: no credentials, a wrong secret, another organization's app (it learns nothing of ours).
// - Bad input: a clear 400 naming the member, per-item errors inside a batch, and the batch semantics.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideApprovalRequest, findApprovalRequest, revokeApprovalGrant } from '../../lib/approvals/broker';
import { createApp } from '../../lib/clients/apps';
import { addPermission } from '../../lib/clients/permission-catalog';
import { issueSurfaceSecret, recordDeclaration } from '../../lib/clients/surface';
import { approvalGrants, auditEvents } from '../../lib/db/schema';
import type { Env } from '../../lib/env';
import { createAgent } from '../../lib/organizations/agents';
import { createOrganization } from '../../lib/organizations/organizations';
import { addTeamMember, createTeam, grantTeamScope } from '../../lib/organizations/teams';
import { installRuntime, type PorticoRuntime } from '../../lib/runtime';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { createMember } from '../support/provider-harness';
import { serveAuthzen } from '../support/authzen-server';
import { tamperedToken } from '../support/tamper';

const REGISTRY = Symbol.for('portico.runtime');
const AT_REST_KEY = new Uint8Array(32).fill(7);

const TODO = (n: number) => `7240d0db-8ff0-41ec-98b2-34a096273b9${n}`;

describe('the AuthZEN decision point over HTTP', () => {
  let database: TestDatabase;
  let server: Server;
  let base = '';
  let previous: unknown;
  let basic = '';
  let otherBasic = '';
  let tokenKey: CryptoKey;
  let appIdentity = '';
  let owner: { id: string };
  let strayAgent = '';
  const people: Record<'rick' | 'morty' | 'summer' | 'beth' | 'jerry', { id: string; email: string }> = {} as never;
  const slug = `authzen-${randomBytes(3).toString('hex')}`;

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: basic, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

  beforeAll(async () => {
    database = await openTestDatabase();
    server = await serveAuthzen(() => base);
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const pair = await generateKeyPair('ES256', { extractable: true });
    tokenKey = pair.privateKey;
    const env = { PORTICO_ISSUER: base } as unknown as Env;
    const partial: Pick<PorticoRuntime, 'env' | 'raw' | 'publicJwks' | 'atRestKey'> = {
      env,
      raw: database.raw,
      publicJwks: [{ ...(await exportJWK(pair.publicKey)), kid: 'authzen-test', alg: 'ES256', use: 'sig' }],
      atRestKey: AT_REST_KEY,
    };
    previous = (globalThis as Record<symbol, unknown>)[REGISTRY];
    installRuntime(partial as PorticoRuntime);

    // The interop's Todo application: people with roles, as an organization with teams.
    const org = await createOrganization(database.db, { slug, name: 'Citadel' });
    owner = await createMember(database, org.id, `owner-${slug}@citadel.test`, 'owner');
    const created = await createApp(database.db, { orgId: org.id, slug: 'todo', name: 'Todo', publishOrigin: `https://todo-${slug}.example`, redirectUris: [`https://todo-${slug}.example/callback`] });
    basic = `Basic ${Buffer.from(`${encodeURIComponent(created.clientId)}:${encodeURIComponent(created.clientSecret!)}`).toString('base64')}`;
    appIdentity = created.app.identity;
    await issueSurfaceSecret(database.db, created.app.id, AT_REST_KEY);
    await recordDeclaration(
      database.db,
      created.app.id,
      [
        { name: 'todos.purge', riskLevel: 'approval_required', requiredScopes: ['can_delete_todo'] },
        { name: 'todos.wipe', riskLevel: 'approval_required', requiredScopes: ['can_delete_todo'] },
        { name: 'todos.list', riskLevel: 'safe', requiredScopes: ['mcp'] },
        { name: 'todos.export', riskLevel: 'caution', requiredScopes: ['can_read_todos'] },
      ],
      1,
    );
    for (const scope of ['can_read_user', 'can_read_todos', 'can_create_todo', 'can_update_todo', 'can_update_todo:own', 'can_delete_todo', 'can_delete_todo:own']) {
      await addPermission(database.db, created.app.id, { scope, description: scope });
    }
    const teams: Record<string, string[]> = {
      admin: ['can_read_user', 'can_read_todos', 'can_create_todo', 'can_delete_todo'],
      evil_genius: ['can_update_todo'],
      editor: ['can_read_user', 'can_read_todos', 'can_create_todo', 'can_update_todo:own', 'can_delete_todo:own'],
      viewer: ['can_read_user', 'can_read_todos'],
    };
    const teamIds: Record<string, string> = {};
    for (const [name, scopes] of Object.entries(teams)) {
      const team = await createTeam(database.db, { orgId: org.id, name });
      teamIds[name] = team.id;
      for (const scope of scopes) await grantTeamScope(database.db, { teamId: team.id, appId: created.app.id, scope });
    }
    const roles = { rick: ['admin', 'evil_genius'], morty: ['editor'], summer: ['editor'], beth: ['viewer'], jerry: ['viewer'] } as const;
    const domains = { rick: 'the-citadel.com', morty: 'the-citadel.com', summer: 'the-smiths.com', beth: 'the-smiths.com', jerry: 'the-smiths.com' } as const;
    for (const [name, teamNames] of Object.entries(roles) as [keyof typeof roles, readonly string[]][]) {
      // The interop's addresses, made unique to this run (the suite's database is shared).
      const email = `${name}-${slug}@${domains[name]}`;
      const user = await createMember(database, org.id, email);
      people[name] = { id: user.id, email: user.email };
      for (const team of teamNames) await addTeamMember(database.db, teamIds[team]!, user.id);
    }

    // An agent of the organization with no connection to the app: nobody there.
    strayAgent = (await createAgent(database.db, { orgId: org.id, name: 'Stray', ownerUserId: owner.id })).id;

    // Another organization's app, with its own client.
    const other = await createOrganization(database.db, { slug: `${slug}-other`, name: 'Other' });
    const foreign = await createApp(database.db, { orgId: other.id, slug: 'todo', name: 'Other todo', publishOrigin: `https://other-${slug}.example`, redirectUris: [`https://other-${slug}.example/callback`] });
    otherBasic = `Basic ${Buffer.from(`${encodeURIComponent(foreign.clientId)}:${encodeURIComponent(foreign.clientSecret!)}`).toString('base64')}`;
  });

  afterAll(async () => {
    (globalThis as Record<symbol, unknown>)[REGISTRY] = previous;
    await new Promise((resolve) => server.close(resolve));
    await database?.close();
  });

  it('publishes its metadata, the decision point named by the issuer it is fetched under', async () => {
    const response = await fetch(`${base}/.well-known/authzen-configuration`);
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata.policy_decision_point).toBe(base);
    expect(metadata.access_evaluation_endpoint).toBe(`${base}/access/v1/evaluation`);
    expect(metadata.access_evaluations_endpoint).toBe(`${base}/access/v1/evaluations`);
    expect(metadata.search_subject_endpoint).toBe(`${base}/access/v1/search/subject`);
    expect(metadata.access_request_endpoint).toBe(`${base}/access/v1/requests`);
    expect(metadata.capabilities).toEqual(['urn:openid:authzen:capability:access-request']);
  });

  it('answers the interop Todo scenario’s 40 evaluations as the working group expects', async () => {
    const { rick, morty, summer, beth, jerry } = people;
    const owners = { 2: rick, 1: morty, 3: summer, 4: beth, 5: jerry } as const;
    const todo = (n: keyof typeof owners) => ({ type: 'todo', id: TODO(n), properties: { ownerID: owners[n].email } });
    // Per person: their own todo, and the one the interop updates and deletes as "someone else's" (Rick: Morty's).
    const cases: [keyof typeof people, keyof typeof owners, { create: boolean; updateOthers: boolean; updateOwn: boolean; deleteOthers: boolean; deleteOwn: boolean }][] = [
      ['rick', 1, { create: true, updateOthers: true, updateOwn: true, deleteOthers: true, deleteOwn: true }],
      ['morty', 1, { create: true, updateOthers: false, updateOwn: true, deleteOthers: false, deleteOwn: true }],
      ['summer', 3, { create: true, updateOthers: false, updateOwn: true, deleteOthers: false, deleteOwn: true }],
      ['beth', 4, { create: false, updateOthers: false, updateOwn: false, deleteOthers: false, deleteOwn: false }],
      ['jerry', 5, { create: false, updateOthers: false, updateOwn: false, deleteOthers: false, deleteOwn: false }],
    ];
    const pairs: [unknown, boolean][] = [];
    for (const [name, own, expected] of cases) {
      const subject = { type: 'user', id: people[name].id };
      pairs.push(
        [{ subject, action: { name: 'can_read_user' }, resource: { type: 'user', id: people[name].email } }, true],
        [{ subject, action: { name: 'can_read_user' }, resource: { type: 'user', id: rick.id } }, true],
        [{ subject, action: { name: 'can_read_todos' }, resource: { type: 'todo', id: 'todo-1' } }, true],
        [{ subject, action: { name: 'can_create_todo' }, resource: { type: 'todo', id: 'todo-1' } }, expected.create],
        [{ subject, action: { name: 'can_update_todo' }, resource: todo(2) }, expected.updateOthers],
        [{ subject, action: { name: 'can_update_todo' }, resource: todo(own) }, expected.updateOwn],
        [{ subject, action: { name: 'can_delete_todo' }, resource: todo(2) }, expected.deleteOthers],
        [{ subject, action: { name: 'can_delete_todo' }, resource: todo(own) }, expected.deleteOwn],
      );
    }
    expect(pairs).toHaveLength(40);
    const answers = await Promise.all(pairs.map(async ([request]) => (await (await post('/access/v1/evaluation', request)).json()) as { decision: boolean }));
    expect(answers.map((answer) => answer.decision)).toEqual(pairs.map(([, expected]) => expected));
    // A plain denial says nothing more than the decision (the interop compares answers byte for byte).
    expect(answers.find((answer) => !answer.decision)).toEqual({ decision: false });
  });

  it('answers the interop’s batches byte for byte, defaults from the top level', async () => {
    const { rick, morty, jerry } = people;
    const batch = (subject: string, todos: [number, string][]) =>
      post('/access/v1/evaluations', { subject: { type: 'user', id: subject }, action: { name: 'can_update_todo' }, evaluations: todos.map(([n, ownerID]) => ({ resource: { type: 'todo', id: TODO(n), properties: { ownerID } } })) }).then((response) => response.text());
    expect(await batch(rick.id, [[2, rick.email], [5, jerry.email]])).toBe('{"evaluations":[{"decision":true},{"decision":true}]}');
    expect(await batch(morty.id, [[2, rick.email], [1, morty.email]])).toBe('{"evaluations":[{"decision":false},{"decision":true}]}');
    expect(await batch(jerry.id, [[2, rick.email], [5, jerry.email]])).toBe('{"evaluations":[{"decision":false},{"decision":false}]}');
  });

  it('short-circuits as the batch semantic says, and decides every other item when one is malformed', async () => {
    const subject = { type: 'user', id: people.morty.id };
    const items = [{ action: { name: 'can_read_todos' } }, { action: { name: 'can_create_todo' } }, { action: { name: 'can_delete_todo' } }, { action: { name: 'can_read_user' } }];
    const run = async (semantic: string) =>
      (await (await post('/access/v1/evaluations', { subject, resource: { type: 'todo', id: 'todo-1' }, options: { evaluations_semantic: semantic }, evaluations: items })).json()) as { evaluations: { decision: boolean }[] };
    expect((await run('execute_all')).evaluations.map((item) => item.decision)).toEqual([true, true, false, true]);
    expect((await run('deny_on_first_deny')).evaluations.map((item) => item.decision)).toEqual([true, true, false]);
    expect((await run('permit_on_first_permit')).evaluations.map((item) => item.decision)).toEqual([true]);
    const mixed = (await (await post('/access/v1/evaluations', { subject, resource: { type: 'todo', id: 'todo-1' }, evaluations: [{ action: { name: 'can_read_todos' } }, { action: {} }] })).json()) as { evaluations: { decision: boolean; context?: { error?: { message?: string } } }[] };
    expect(mixed.evaluations[0]).toEqual({ decision: true });
    expect(mixed.evaluations[1]!.decision).toBe(false);
    expect(mixed.evaluations[1]!.context?.error?.message).toMatch(/action\.name/);
  });

  it('refuses what it cannot read with a 400 naming it, and echoes the request id', async () => {
    const missing = await post('/access/v1/evaluation', { subject: { type: 'user', id: people.rick.id }, resource: { type: 'todo', id: 'x' } }, { 'X-Request-ID': 'req-42' });
    expect(missing.status).toBe(400);
    expect(missing.headers.get('x-request-id')).toBe('req-42');
    expect(((await missing.json()) as { error_description: string }).error_description).toMatch(/action is required/);
    const notJson = await post('/access/v1/evaluation', '{"subject":');
    expect(notJson.status).toBe(400);
    const semantic = await post('/access/v1/evaluations', { subject: { type: 'user', id: people.rick.id }, options: { evaluations_semantic: 'any' }, evaluations: [] });
    expect(semantic.status).toBe(400);
    const ok = await post('/access/v1/evaluation', { subject: { type: 'user', id: people.rick.id }, action: { name: 'can_read_todos' }, resource: { type: 'todo', id: 'x' } }, { 'X-Request-ID': 'req-43' });
    expect(ok.headers.get('x-request-id')).toBe('req-43');
  });

  it('answers only the app’s own client: none, a wrong secret, another organization’s app', async () => {
    const request = { subject: { type: 'user', id: people.rick.id }, action: { name: 'can_read_todos' }, resource: { type: 'todo', id: 'todo-1' } };
    const anonymous = await fetch(`${base}/access/v1/evaluation`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(request) });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic/);
    const wrong = await post('/access/v1/evaluation', request, { Authorization: `Basic ${Buffer.from(`${basic.slice(6)}x:nope`).toString('base64')}` });
    expect(wrong.status).toBe(401);
    // Another organization's app asks about our people: they are nobody there.
    const foreign = await fetch(`${base}/access/v1/evaluation`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: otherBasic }, body: JSON.stringify(request) });
    expect(await foreign.json()).toEqual({ decision: false });
    const search = await fetch(`${base}/access/v1/search/subject`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: otherBasic }, body: JSON.stringify({ ...request, subject: { type: 'user' } }) });
    expect(((await search.json()) as { results: unknown[] }).results).toEqual([]);
  });

  it('decides for the subject of an access token Portico issued for this app, never beyond its scope', async () => {
    const token = (scope: string, audience = appIdentity) =>
      new SignJWT({ client_id: 'todo-client', scope })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'authzen-test' })
        .setIssuer(base)
        .setAudience(audience)
        .setSubject(people.morty.id)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(tokenKey);
    const ask = async (jwt: string, action: string) => (await (await post('/access/v1/evaluation', { subject: { type: 'access_token', id: jwt }, action: { name: action }, resource: { type: 'todo', id: 'todo-1' } })).json()) as { decision: boolean };
    expect((await ask(await token('mcp can_read_todos can_create_todo'), 'can_create_todo')).decision).toBe(true);
    // Morty holds can_create_todo, but this token does not carry it.
    expect((await ask(await token('mcp can_read_todos'), 'can_create_todo')).decision).toBe(false);
    // A token for another audience, or a tampered one, is nobody.
    expect((await ask(await token('mcp can_read_todos', 'https://elsewhere.example'), 'can_read_todos')).decision).toBe(false);
    const good = await token('mcp can_read_todos');
    expect((await ask(tamperedToken(good), 'can_read_todos')).decision).toBe(false);
  });

  it('searches subjects, resources and actions with answers the evaluation API agrees with', async () => {
    const subjects = (await (await post('/access/v1/search/subject', { subject: { type: 'user' }, action: { name: 'can_create_todo' }, resource: { type: 'todo', id: 'todo-1' } })).json()) as { results: { id: string }[]; page: { next_token: string } };
    expect(subjects.results.map((result) => result.id).sort()).toEqual([people.rick.id, people.morty.id, people.summer.id].sort());
    expect(subjects.page.next_token).toBe('');
    const tools = (await (await post('/access/v1/search/resource', { subject: { type: 'user', id: people.beth.id }, action: { name: 'call' }, resource: { type: 'tool' } })).json()) as { results: { id: string }[] };
    expect(tools.results.map((result) => result.id)).toEqual(['todos.export', 'todos.list']);
    const actions = (await (await post('/access/v1/search/action', { subject: { type: 'user', id: people.morty.id }, resource: { type: 'todo', id: TODO(1), properties: { ownerID: people.morty.email } } })).json()) as { results: { name: string }[] };
    // The baseline `mcp` every member holds is no action (it would only tell who is a member).
    expect(actions.results.map((result) => result.name)).toEqual(['can_create_todo', 'can_delete_todo', 'can_read_todos', 'can_read_user', 'can_update_todo']);
  });

  it('refuses what would make anyone a subject: a CIBA token, an unconnected agent, the baseline as an action, a NUL', async () => {
    const ciba = await new SignJWT({ client_id: 'todo-client', scope: 'mcp can_read_todos', authorization_details: [{ type: 'portico_action', description: 'one thing' }] })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'authzen-test' })
      .setIssuer(base)
      .setAudience(appIdentity)
      .setSubject(people.morty.id)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(tokenKey);
    const ask = async (body: unknown) => (await (await post('/access/v1/evaluation', body)).json()) as { decision: boolean };
    const todo = { type: 'todo', id: 'todo-1' };
    expect(await ask({ subject: { type: 'access_token', id: ciba }, action: { name: 'can_read_todos' }, resource: todo })).toEqual({ decision: false });
    expect(await ask({ subject: { type: 'agent', id: strayAgent }, action: { name: 'call' }, resource: { type: 'tool', id: 'todos.list' } })).toEqual({ decision: false });
    // Every member holds the baseline: as an action it would only tell who is a member.
    expect(await ask({ subject: { type: 'user', id: people.beth.email }, action: { name: 'mcp' }, resource: todo })).toEqual({ decision: false });
    const nulClient = await post('/access/v1/evaluation', { subject: { type: 'user', id: people.rick.id }, action: { name: 'can_read_todos' }, resource: todo }, { Authorization: `Basic ${Buffer.from('%00:secret').toString('base64')}` });
    expect(nulClient.status).toBe(401);
    const nulApproval = await post('/access/v1/evaluation', { subject: { type: 'user', id: people.rick.id }, action: { name: 'call' }, resource: { type: 'tool', id: 'todos.purge' }, context: { approval: { id: 'apg_\u0000' } } });
    expect(nulApproval.status).toBe(200);
    expect(((await nulApproval.json()) as { decision: boolean }).decision).toBe(false);
  });

  it('opens one request however often, and however concurrently, a denial is submitted', async () => {
    const evaluate = async () =>
      (await (await post('/access/v1/evaluation', { subject: { type: 'user', id: people.rick.id }, action: { name: 'call' }, resource: { type: 'tool', id: 'todos.wipe' } })).json()) as { decision: boolean; context: Record<string, any> };
    const denials = await Promise.all([evaluate(), evaluate(), evaluate()]);
    const submit = (denial: { context: Record<string, any> }, justification = 'Clean up') =>
      post('/access/v1/requests', {
        subject: { type: 'user', id: people.rick.id },
        resource: { type: 'tool', id: 'todos.wipe' },
        action: { name: 'call' },
        context: { business_justification: justification },
        denial: { binding_token: denial.context.access_request.binding_token, expires_at: denial.context.access_request.expires_at },
      });
    const answers = await Promise.all([...denials, ...denials].map((denial) => submit(denial)));
    const ids = new Set(await Promise.all(answers.map(async (answer) => ((await answer.json()) as { task: { id: string } }).task.id)));
    expect(ids.size).toBe(1);
    // The app may withdraw its request while it waits, once: a second cancel is a 409 in the profile's words.
    const [taskId] = [...ids];
    const cancelled = await post(`/access/v1/requests/${taskId}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as { task: { status: string } }).task.status).toBe('cancelled');
    const again = await post(`/access/v1/requests/${taskId}/cancel`, {});
    expect(again.status).toBe(409);
    expect(((await again.json()) as { type: string }).type).toBe('urn:openid:authzen:access-request:error:invalid_task_state');
    // Control characters in the reason operators read are refused, and nothing is written.
    const control = await submit(denials[0]!, 'Clean\u0000up');
    expect(control.status).toBe(400);
  });

  it('leads an approval_required denial through an access request to true while the grant lasts, and false after', async () => {
    const ask = (context?: Record<string, unknown>) => post('/access/v1/evaluation', { subject: { type: 'user', id: people.rick.id }, action: { name: 'call' }, resource: { type: 'tool', id: 'todos.purge' }, ...(context ? { context } : {}) }).then((response) => response.json() as Promise<{ decision: boolean; context?: Record<string, any> }>);
    // Beth lacks the tool's permission: a plain denial, nothing to request.
    const beth = (await (await post('/access/v1/evaluation', { subject: { type: 'user', id: people.beth.id }, action: { name: 'call' }, resource: { type: 'tool', id: 'todos.purge' } })).json()) as Record<string, unknown>;
    expect(beth).toEqual({ decision: false });

    const denied = await ask();
    expect(denied.decision).toBe(false);
    expect(denied.context?.reason).toBe('approval_required');
    expect(denied.context?.access_request?.endpoint).toBe(`${base}/access/v1/requests`);
    const bindingToken = denied.context!.access_request.binding_token as string;
    const submission = (overrides: Record<string, unknown> = {}) => ({
      subject: { type: 'user', id: people.rick.id },
      resource: { type: 'tool', id: 'todos.purge' },
      action: { name: 'call' },
      context: { business_justification: 'Quarterly clean-up' },
      requested_access: { requested_until: new Date(Date.now() + 2 * 3600 * 1000).toISOString() },
      denial: { evaluation_id: denied.context!.evaluation_id, expires_at: denied.context!.access_request.expires_at, reason: 'approval_required', binding_token: bindingToken },
      ...overrides,
    });
    // The binding covers exactly what was denied: another subject or a tampered token is refused.
    const swapped = await post('/access/v1/requests', submission({ subject: { type: 'user', id: people.morty.id } }));
    expect(swapped.status).toBe(400);
    expect(((await swapped.json()) as { type: string }).type).toBe('urn:openid:authzen:access-request:error:invalid_denial_binding');
    const tampered = await post('/access/v1/requests', submission({ denial: { binding_token: tamperedToken(bindingToken), expires_at: 'x' } }));
    expect(tampered.status).toBe(400);
    // Another organization's app cannot use our denial.
    const foreign = await fetch(`${base}/access/v1/requests`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: otherBasic }, body: JSON.stringify(submission()) });
    expect(foreign.status).toBe(400);

    const submitted = await post('/access/v1/requests', submission());
    expect(submitted.status).toBe(202);
    const { task } = (await submitted.json()) as { task: { id: string; status: string; status_endpoint: string } };
    expect(task.status).toBe('pending');
    expect(submitted.headers.get('location')).toBe(task.status_endpoint);
    const pending = (await (await fetch(task.status_endpoint, { headers: { Authorization: basic } })).json()) as { task: { status: string } };
    expect(pending.task.status).toBe('pending');
    // Another app's client does not see the task.
    expect((await fetch(task.status_endpoint, { headers: { Authorization: otherBasic } })).status).toBe(404);
    expect((await ask()).decision).toBe(false);

    // The operator approves in the central (the broker's decision, as the central's page makes it).
    const request = (await findApprovalRequest(database.db, task.id))!;
    expect(request.reason).toBe('Quarterly clean-up');
    await decideApprovalRequest(database.db, { requestId: request.id, decision: 'approve', fingerprint: request.fingerprint, channel: 'central', decidedBy: owner.id, actor: { type: 'person', id: owner.id } });
    const done = (await (await fetch(task.status_endpoint, { headers: { Authorization: basic } })).json()) as { task: { status: string }; result: { mode: string; approval: { id: string; approved_until: string } } };
    expect(done.task.status).toBe('approved');
    expect(done.result.mode).toBe('reevaluate');
    const approved = await ask({ approval: done.result.approval });
    expect(approved).toEqual({ decision: true, context: { approval: expect.objectContaining({ id: done.result.approval.id, approved_until: done.result.approval.approved_until }) } });
    // The grant is the subject's: Morty's evaluation with Rick's approval is not approved by it.
    const morty = (await (await post('/access/v1/evaluation', { subject: { type: 'user', id: people.morty.id }, action: { name: 'call' }, resource: { type: 'tool', id: 'todos.purge' }, context: { approval: done.result.approval } })).json()) as { decision: boolean };
    expect(morty.decision).toBe(false);

    // The window ends (its end moved into the past, as time would): false, with a fresh request offered.
    await database.db.update(approvalGrants).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(approvalGrants.id, done.result.approval.id));
    const ended = await ask({ approval: done.result.approval });
    expect(ended.decision).toBe(false);
    expect(ended.context?.reason).toBe('approval_expired');
    expect(ended.context?.next_action).toBe('request');
    expect(ended.context?.access_request?.binding_token).toBeTypeOf('string');
    expect((await ask()).decision).toBe(false);

    // Decisions from caution up are audited, with who asked.
    const audited = await database.db.select().from(auditEvents).where(eq(auditEvents.action, 'authzen.evaluated'));
    expect(audited.some((event) => event.subjectId === people.rick.id && (event.details as { decision?: boolean }).decision === true)).toBe(true);
  });

  it('revoking the grant ends it at once', async () => {
    const ask = () => post('/access/v1/evaluation', { subject: { type: 'user', id: people.summer.id }, action: { name: 'call' }, resource: { type: 'tool', id: 'todos.purge' } }).then((response) => response.json() as Promise<{ decision: boolean; context?: Record<string, any> }>);
    // Summer holds can_delete_todo only in its :own form: the tool needs the permission itself.
    expect(await ask()).toEqual({ decision: false });
    const rick = () => post('/access/v1/evaluation', { subject: { type: 'user', id: people.rick.id }, action: { name: 'call' }, resource: { type: 'tool', id: 'todos.purge' } }).then((response) => response.json() as Promise<{ decision: boolean; context?: Record<string, any> }>);
    const denied = await rick();
    const submitted = await post('/access/v1/requests', {
      subject: { type: 'user', id: people.rick.id },
      resource: { type: 'tool', id: 'todos.purge' },
      action: { name: 'call' },
      denial: { binding_token: denied.context!.access_request.binding_token, expires_at: denied.context!.access_request.expires_at },
    });
    const { task } = (await submitted.json()) as { task: { id: string } };
    const request = (await findApprovalRequest(database.db, task.id))!;
    const decided = await decideApprovalRequest(database.db, { requestId: request.id, decision: 'approve', fingerprint: request.fingerprint, channel: 'central', decidedBy: owner.id, actor: { type: 'person', id: owner.id } });
    expect((await rick()).decision).toBe(true);
    // `approval: null` is no approval presented: the grant in force still answers.
    const withNull = (await (await post('/access/v1/evaluation', { subject: { type: 'user', id: people.rick.id }, action: { name: 'call' }, resource: { type: 'tool', id: 'todos.purge' }, context: { approval: null } })).json()) as { decision: boolean };
    expect(withNull.decision).toBe(true);
    await revokeApprovalGrant(database.db, decided.grant!.id, owner.id, { type: 'person', id: owner.id });
    expect((await rick()).decision).toBe(false);
  });
});
