// Confirmations a person gives (PORTICO_CONFIRMATION_MODE=human, the default): with the MCP SDK's client, tokens
// Portico really issues and real PostgreSQL. The caller's own retry with the token runs nothing until the token's
// person confirmed in Portico with step-up (password, or the authenticator when they have one); then exactly one
// retry runs; a denial ends the token; everything is audited; REST answers 428 the same way.
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { and, eq, sql } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIRMATION_META, RISK_MODEL_CAPABILITY } from '../../app-kit/tools';
import { createAgent } from '../../lib/organizations/agents';
import { confirmTotpEnrollment, startTotpEnrollment } from '../../lib/accounts/factors/totp';
import { setSecondFactorPolicy } from '../../lib/accounts/factors/second-factor-policy';
import { relyingPartyOf } from '../../lib/accounts/factors/passkeys';
import type { User } from '../../lib/accounts/users';
import { addPermission } from '../../lib/clients/permission-catalog';
import { auditEvents, confirmationChallenges } from '../../lib/db/schema';
import { answerConfirmation, findConfirmation } from '../../lib/confirmations/answers';
import { Refusal as ConfirmationRefusal, Refusal as StepUpRefusal } from '../../lib/refusals/refusal';
import { postgresConfirmationStore } from '../../lib/confirmations/store';
import { argumentsDigest, hashConfirmationNonce } from '../../app-kit/risk';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { porticoApiToken, startMcpInstance, type McpInstance } from '../support/portico-mcp';
import { createMember, createOrgWithApp, startProviderHarness, TEST_PASSWORD, type AppFixture, type Harness } from '../support/provider-harness';

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean; _meta?: Record<string, { confirmation_url?: string; status?: string; token?: string }> };
const text = (result: unknown) => (result as ToolResult).content[0]?.text ?? '';
const metaOf = (result: unknown) => (result as ToolResult)._meta?.[CONFIRMATION_META];
const atRestKey = randomBytes(32);
const keys = { atRestKey, rp: relyingPartyOf('http://localhost') };

describe('confirmations a person gives (human mode)', () => {
  let database: TestDatabase;
  let harness: Harness;
  let fixture: AppFixture;
  let agentId: string;
  let orgSlug: string;
  let owner: User;
  let outsider: User;
  let ownerToken: string;
  let instances: McpInstance[];

  const grantArgs = (scope: string) => ({ org: orgSlug, agent: agentId, app: fixture.app.slug, scope });
  const grantsRun = async (scope: string) =>
    (await database.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'agent.scope_granted'), eq(auditEvents.subjectId, agentId)))).filter(
      (event) => (event.details as { scope?: string }).scope === scope,
    ).length;
  const idOf = (url: string) => url.split('/console/confirm/')[1]!;
  const ip = '192.0.2.50';

  async function connect(url: string): Promise<Client> {
    const client = new Client({ name: 'human-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${ownerToken}` } } }));
    return client;
  }

  /** The first call: a challenge whose link names the page where the person confirms. */
  async function challenge(client: Client, scope: string): Promise<{ token: string; id: string; url: string; text: string }> {
    const result = await client.callTool({ name: 'agents.grant', arguments: grantArgs(scope) });
    const meta = metaOf(result)!;
    expect(meta.status).toBe('confirmation_required');
    return { token: meta.token!, url: meta.confirmation_url!, id: idOf(meta.confirmation_url!), text: text(result) };
  }

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    fixture = await createOrgWithApp(database, 'Human');
    for (const scope of ['h:one', 'h:two', 'h:race', 'h:deny', 'h:rest', 'h:totp', 'h:other', 'h:answer-race', 'h:expired', 'h:inline', 'h:inline-denied', 'h:inline-declined', 'h:view']) {
      await addPermission(database.db, fixture.app.id, { scope, description: `Test permission ${scope}` });
    }
    owner = await createMember(database, fixture.orgId, `owner-${randomBytes(3).toString('hex')}@human.test`, 'owner');
    outsider = await createMember(database, fixture.orgId, `other-${randomBytes(3).toString('hex')}@human.test`, 'admin');
    agentId = (await createAgent(database.db, { orgId: fixture.orgId, name: 'Helper', ownerUserId: owner.id })).id;
    orgSlug = (await database.db.query.organizations.findFirst({ where: (org, { eq: equals }) => equals(org.id, fixture.orgId) }))!.slug;
    ownerToken = await porticoApiToken(harness, database, owner.email);
    // No confirmationMode given: Portico's default must be human.
    instances = [await startMcpInstance(database, harness), await startMcpInstance(database, harness)];
  });
  afterAll(async () => {
    for (const instance of instances ?? []) await instance.close();
    await harness?.close();
    await database?.close();
  });

  it('runs nothing on the caller’s own retry: it waits, without spending the token, until the person confirms with step-up', async () => {
    const client = await connect(instances[0]!.url);
    expect(client.getServerCapabilities()?.experimental?.[RISK_MODEL_CAPABILITY]).toMatchObject({ confirmation_mode: 'human' });
    const first = await challenge(client, 'h:one');
    expect(first.url).toMatch(new RegExp(`^${harness.issuer}/console/confirm/cnf_[A-Za-z0-9_-]{32}$`));
    expect(first.text).toContain(first.url);
    expect(first.text).not.toContain('Show this to the person');

    // The agent relays the token at once (the first version's hole): nothing runs, and the token is kept.
    const retry = await client.callTool({ name: 'agents.grant', arguments: { ...grantArgs('h:one'), _confirmation_token: first.token } });
    expect(text(retry)).toContain('Waiting for confirmation');
    expect(metaOf(retry)).toMatchObject({ status: 'waiting' });
    expect(await grantsRun('h:one')).toBe(0);

    // Someone else (even an admin of the organization) cannot see or answer it.
    expect(await findConfirmation(database.db, first.id, outsider)).toBeUndefined();
    await expect(answerConfirmation(database.db, keys, { id: first.id, user: outsider, decision: 'confirm', proof: { password: TEST_PASSWORD }, ip })).rejects.toBeInstanceOf(ConfirmationRefusal);
    // The person, with a wrong password: refused next to the field; still waiting.
    await expect(answerConfirmation(database.db, keys, { id: first.id, user: owner, decision: 'confirm', proof: { password: 'not the password at all' }, ip })).rejects.toMatchObject({ field: 'password' });
    await expect(answerConfirmation(database.db, keys, { id: first.id, user: owner, decision: 'confirm', proof: {}, ip })).rejects.toBeInstanceOf(StepUpRefusal);
    expect(text(await client.callTool({ name: 'agents.grant', arguments: { ...grantArgs('h:one'), _confirmation_token: first.token } }))).toContain('Waiting for confirmation');

    // What the page shows: the tool, its warning, the arguments as bound.
    const view = await findConfirmation(database.db, first.id, owner);
    expect(view).toMatchObject({ tool: 'agents.grant', riskLevel: 'approval_required', state: 'pending', agent: null, app: null });
    expect(JSON.parse(view!.arguments)).toEqual(grantArgs('h:one'));
    await answerConfirmation(database.db, keys, { id: first.id, user: owner, decision: 'confirm', proof: { password: TEST_PASSWORD }, ip });
    // Answered once.
    await expect(answerConfirmation(database.db, keys, { id: first.id, user: owner, decision: 'deny', proof: {}, ip })).rejects.toMatchObject({ code: 'decided' });

    // Changed arguments with the confirmed token: a new challenge, nothing runs.
    const changed = await client.callTool({ name: 'agents.grant', arguments: { ...grantArgs('h:other'), _confirmation_token: first.token } });
    expect(metaOf(changed)).toMatchObject({ status: 'confirmation_required' });
    expect(await grantsRun('h:other')).toBe(0);
    // The same arguments (another key order): runs once; a second retry is a new challenge.
    const { scope, app, agent, org } = grantArgs('h:one');
    expect(text(await client.callTool({ name: 'agents.grant', arguments: { _confirmation_token: first.token, scope, app, agent, org } }))).toContain('now holds h:one');
    expect(metaOf(await client.callTool({ name: 'agents.grant', arguments: { ...grantArgs('h:one'), _confirmation_token: first.token } }))).toMatchObject({ status: 'confirmation_required' });
    expect(await grantsRun('h:one')).toBe(1);

    const audit = await database.db.select().from(auditEvents).where(and(eq(auditEvents.subjectId, 'agents.grant'), eq(auditEvents.action, 'mcp.tool_confirmed')));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actorId: owner.id, orgId: fixture.orgId });
    expect(audit[0]!.details).toMatchObject({ stepUp: 'password', confirmation: first.id, arguments: grantArgs('h:one') });
    await client.close();
  });

  it('runs a confirmed call exactly once when retries race on two instances', async () => {
    const [a, b] = await Promise.all(instances.map((instance) => connect(instance.url)));
    const first = await challenge(a!, 'h:race');
    await answerConfirmation(database.db, keys, { id: first.id, user: owner, decision: 'confirm', proof: { password: TEST_PASSWORD }, ip });
    const results = await Promise.all([a, b, a, b, a, b].map((client) => client!.callTool({ name: 'agents.grant', arguments: { ...grantArgs('h:race'), _confirmation_token: first.token } })));
    expect(results.filter((result) => text(result).includes('now holds')).length).toBe(1);
    expect(await grantsRun('h:race')).toBe(1);
    await Promise.all([a!.close(), b!.close()]);
  });

  it('accepts exactly one of two answers given at once', async () => {
    const client = await connect(instances[0]!.url);
    const first = await challenge(client, 'h:answer-race');
    const answers = await Promise.allSettled([
      answerConfirmation(database.db, keys, { id: first.id, user: owner, decision: 'deny', proof: {}, ip }),
      answerConfirmation(database.db, keys, { id: first.id, user: owner, decision: 'deny', proof: {}, ip }),
      answerConfirmation(database.db, keys, { id: first.id, user: owner, decision: 'confirm', proof: { password: TEST_PASSWORD }, ip }),
    ]);
    expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(1);
    const events = await database.db.select().from(auditEvents).where(sql`${auditEvents.details}->>'confirmation' = ${first.id}`);
    expect(events).toHaveLength(1);
    await client.close();
  });

  it('ends the token on a denial: the retry hears so once and nothing runs', async () => {
    const client = await connect(instances[1]!.url);
    const first = await challenge(client, 'h:deny');
    const { view } = await answerConfirmation(database.db, keys, { id: first.id, user: owner, decision: 'deny', proof: {}, ip });
    expect(view.state).toBe('denied');
    const denied = await client.callTool({ name: 'agents.grant', arguments: { ...grantArgs('h:deny'), _confirmation_token: first.token } });
    expect(denied.isError).toBe(true);
    expect(text(denied)).toContain('denied');
    expect(metaOf(await client.callTool({ name: 'agents.grant', arguments: { ...grantArgs('h:deny'), _confirmation_token: first.token } }))).toMatchObject({ status: 'confirmation_required' });
    expect(await grantsRun('h:deny')).toBe(0);
    expect(await database.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'mcp.tool_denied'), sql`${auditEvents.details}->>'confirmation' = ${first.id}`))).toHaveLength(1);
    await client.close();
  });

  it('refuses a password-only step-up where the organization requires a second factor', async () => {
    const client = await connect(instances[0]!.url);
    const first = await challenge(client, 'h:two');
    await setSecondFactorPolicy(database.db, fixture.orgId, 'admins');
    try {
      await expect(answerConfirmation(database.db, keys, { id: first.id, user: owner, decision: 'confirm', proof: { password: TEST_PASSWORD }, ip })).rejects.toThrow(/requires a second factor/);
      expect((await findConfirmation(database.db, first.id, owner))?.state).toBe('pending');
    } finally {
      await setSecondFactorPolicy(database.db, fixture.orgId, 'none');
    }
    await answerConfirmation(database.db, keys, { id: first.id, user: owner, decision: 'deny', proof: {}, ip });
    await client.close();
  });

  it('refuses to confirm an expired challenge', async () => {
    const client = await connect(instances[0]!.url);
    const first = await challenge(client, 'h:expired');
    await database.db.update(confirmationChallenges).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(confirmationChallenges.id, first.id));
    await expect(answerConfirmation(database.db, keys, { id: first.id, user: owner, decision: 'confirm', proof: { password: TEST_PASSWORD }, ip })).rejects.toMatchObject({ code: 'decided' });
    expect(await findConfirmation(database.db, 'cnf_' + 'x'.repeat(31), owner)).toBeUndefined();
    await client.close();
  });

  it('asks a person with an authenticator for its code, not the password, and takes a code once', async () => {
    const client = await connect(instances[0]!.url);
    const enrollment = await startTotpEnrollment(database.db, atRestKey, owner);
    const codeAt = (at: number) => new TOTP({ secret: Secret.fromBase32(enrollment.secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: at });
    await confirmTotpEnrollment(database.db, atRestKey, owner, codeAt(Date.now() - 30_000), Date.now() - 30_000);
    try {
      const first = await challenge(client, 'h:totp');
      await expect(answerConfirmation(database.db, keys, { id: first.id, user: owner, decision: 'confirm', proof: { password: TEST_PASSWORD }, ip })).rejects.toMatchObject({ field: 'code' });
      await answerConfirmation(database.db, keys, { id: first.id, user: owner, decision: 'confirm', proof: { code: codeAt(Date.now()) }, ip });
      expect((await findConfirmation(database.db, first.id, owner))?.decidedWith).toBe('totp');
      // The same code again, for another call: spent.
      const second = await challenge(client, 'h:two');
      await expect(answerConfirmation(database.db, keys, { id: second.id, user: owner, decision: 'confirm', proof: { code: codeAt(Date.now()) }, ip })).rejects.toMatchObject({ field: 'code' });
      expect(text(await client.callTool({ name: 'agents.grant', arguments: { ...grantArgs('h:totp'), _confirmation_token: first.token } }))).toContain('now holds h:totp');
    } finally {
      await database.db.execute(sql`delete from totp_factors where user_id = ${owner.id}`);
    }
    await client.close();
  });

  it('keeps an app’s challenges to that app: another app, or Portico’s own gate, cannot redeem them', async () => {
    const other = await createOrgWithApp(database, 'Other app');
    const stores = {
      mine: postgresConfirmationStore(database.db, harness.issuer, { appId: fixture.app.id }),
      theirs: postgresConfirmationStore(database.db, harness.issuer, { appId: other.app.id }),
      portico: postgresConfirmationStore(database.db, harness.issuer),
    };
    const binding = { tool: 'notes.delete', subject: owner.id, actor: '', clientId: 'some-client', argumentsDigest: argumentsDigest({ id: 1 }) };
    const nonceHash = hashConfirmationNonce(`confirm_${randomBytes(24).toString('base64url')}`);
    const { confirmationUrl } = await stores.mine.save({ nonceHash, binding, expiresAt: new Date(Date.now() + 300_000), needsHuman: true, riskLevel: 'approval_required', description: 'Deletes a note.', canonicalArguments: '{"id":1}' });
    expect(await findConfirmation(database.db, idOf(confirmationUrl!), owner)).toMatchObject({ app: fixture.app.name, tool: 'notes.delete' });
    await answerConfirmation(database.db, keys, { id: idOf(confirmationUrl!), user: owner, decision: 'confirm', proof: { password: TEST_PASSWORD }, ip });
    expect(await stores.theirs.redeem(nonceHash, binding, new Date())).toBe('invalid');
    expect(await stores.portico.redeem(nonceHash, binding, new Date())).toBe('invalid');
    expect(await stores.mine.redeem(nonceHash, { ...binding, clientId: 'another-client' }, new Date())).toBe('invalid');
    expect(await stores.mine.redeem(nonceHash, binding, new Date())).toBe('run');
    expect(await stores.mine.redeem(nonceHash, binding, new Date())).toBe('invalid');
  });

  it('offers the confirmation inline (URL elicitation, adaptive mode): the call runs once the person confirmed in Portico', async () => {
    const adaptive = await startMcpInstance(database, harness, { approvals: { surface: 'adaptive', centralEnabled: true, frameAncestors: [] }, elicitationWaitMs: 10_000 });
    instances.push(adaptive);
    let personAnswers: 'confirm' | 'deny' | 'decline' = 'confirm';
    const offered: string[] = [];
    const client = new Client({ name: 'inline-test', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const url = (request.params as { url?: string }).url ?? '';
      offered.push(url);
      if (personAnswers === 'decline') return { action: 'decline' };
      // The client opens the page; the person signs in there and answers with step-up (played here, in Portico).
      setTimeout(() => void answerConfirmation(database.db, keys, { id: idOf(url), user: owner, decision: personAnswers === 'confirm' ? 'confirm' : 'deny', proof: { password: TEST_PASSWORD }, ip }), 300);
      return { action: 'accept' };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(adaptive.url), { requestInit: { headers: { Authorization: `Bearer ${ownerToken}` } } }));

    // One call: offered, confirmed in Portico, run.
    expect(text(await client.callTool({ name: 'agents.grant', arguments: grantArgs('h:inline') }))).toContain('now holds h:inline');
    expect(offered[0]).toMatch(new RegExp(`^${harness.issuer}/console/confirm/cnf_`));
    expect(await grantsRun('h:inline')).toBe(1);
    // Denied in Portico: the call says so and nothing runs.
    personAnswers = 'deny';
    const denied = await client.callTool({ name: 'agents.grant', arguments: grantArgs('h:inline-denied') });
    expect(text(denied)).toContain('denied');
    expect(await grantsRun('h:inline-denied')).toBe(0);
    // Declined in the client: the ordinary challenge, nothing runs.
    personAnswers = 'decline';
    expect(metaOf(await client.callTool({ name: 'agents.grant', arguments: grantArgs('h:inline-declined') }))).toMatchObject({ status: 'confirmation_required' });
    expect(await grantsRun('h:inline-declined')).toBe(0);
    await client.close();
  });

  it('points MCP Apps clients at the confirmation view instead of eliciting: the definition names it, the result carries the link', async () => {
    const adaptive = await startMcpInstance(database, harness, { approvals: { surface: 'adaptive', centralEnabled: true, frameAncestors: [] }, elicitationWaitMs: 2_000 });
    instances.push(adaptive);
    const elicited: unknown[] = [];
    // Both MCP Apps and URL elicitation: the view comes first, as for approvals.
    const client = new Client(
      { name: 'view-test', version: '1.0.0' },
      { capabilities: { elicitation: { url: {} }, extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } as never },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicited.push(request.params);
      return { action: 'decline' };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(adaptive.url), { requestInit: { headers: { Authorization: `Bearer ${ownerToken}` } } }));
    const { tools } = await client.listTools();
    const viewOf = (name: string) => (tools.find((tool) => tool.name === name)?._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri;
    expect(viewOf('agents.grant')).toBe('ui://portico/confirmations-v1.html');
    expect(viewOf('clients.revoke')).toBe('ui://portico/confirmations-v1.html');
    expect(viewOf('apps.list')).toBeUndefined();
    expect(viewOf('permissions.request_sensitive_access')).toBe('ui://portico/authorizations-v1.html');

    const result = await client.callTool({ name: 'agents.grant', arguments: grantArgs('h:view') });
    expect(elicited).toEqual([]);
    expect(metaOf(result)).toMatchObject({ status: 'confirmation_required', tool: 'agents.grant', confirmation_url: expect.stringMatching(new RegExp(`^${harness.issuer}/console/confirm/cnf_`)) });
    expect(await grantsRun('h:view')).toBe(0);

    const view = (await client.readResource({ uri: 'ui://portico/confirmations-v1.html' })).contents[0] as { mimeType: string; text: string };
    expect(view.mimeType).toBe('text/html;profile=mcp-app');
    expect(view.text).toContain(`data-issuer="${harness.issuer}"`);
    expect(view.text).not.toContain(metaOf(result)!.token!);
    await client.close();

    // Outside adaptive mode there is no view.
    const plain = await connect(instances[0]!.url);
    expect(((await plain.listTools()).tools.find((tool) => tool.name === 'agents.grant')?._meta as { ui?: unknown }).ui).toBeUndefined();
    await plain.close();
  });

  it('answers 428 over REST until the person confirmed, then runs the retry once', async () => {
    const rest = (body: unknown) =>
      fetch(instances[1]!.url.replace('/api/mcp', '/api/tools/agents.grant'), { method: 'POST', headers: { Authorization: `Bearer ${ownerToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const first = await rest(grantArgs('h:rest'));
    expect(first.status).toBe(428);
    const body = (await first.json()) as { status: string; confirmation_token: string; confirmation_url: string };
    expect(body).toMatchObject({ status: 'confirmation_required' });
    const waiting = await rest({ ...grantArgs('h:rest'), _confirmation_token: body.confirmation_token });
    expect(waiting.status).toBe(428);
    expect(await waiting.json()).toMatchObject({ status: 'waiting_for_confirmation' });
    await answerConfirmation(database.db, keys, { id: idOf(body.confirmation_url), user: owner, decision: 'confirm', proof: { password: TEST_PASSWORD }, ip });
    const ran = await rest({ ...grantArgs('h:rest'), _confirmation_token: body.confirmation_token });
    expect(ran.status).toBe(200);
    expect((await rest({ ...grantArgs('h:rest'), _confirmation_token: body.confirmation_token })).status).toBe(428);
    expect(await grantsRun('h:rest')).toBe(1);
  });
});
