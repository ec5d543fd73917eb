// The agent page's workload sections (issue 59), as an admin uses them in each language: a public key added (a
// private one refused next to its field, what was typed kept), a Kubernetes trust rule added (a bad namespace refused
// next to its field, the form keeping the rest), and "Test a workload token" saying which rule takes a token signed
// by the cluster key the rule holds, and why another namespace's is taken by none. Each state is checked at 1280 and
// 390 px: axe, no sideways scroll, a screenshot to look at. And the issue's "done when" on the real server: a
// workload with a Kubernetes-shaped token and no secret calls the example app's tools as its agent (openid-client plus
// the MCP client); disabled, its next token request is refused and the app, told by Shared Signals through the
// outbox, refuses the token it still holds. (Two instances: test/oidc/workload-agents.test.ts.)
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import { expect, test, type Page, type TestInfo } from './support/test';
import { expectAccessible } from './support/accessibility';
import { expectNoSidewaysScroll } from './support/layout';
import { consoleSignIn } from './support/console';
import { E2E_ISSUER } from './support/constants';
import { FLIGHT_DECK } from './support/fixtures';
import { supportedLocales, translator } from '../lib/i18n/catalogs';
import * as oidc from 'openid-client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startFlightDeck } from './support/flight-deck';
import { confirmed } from './support/confirmation';
import { accessTokenThroughConsent } from './support/mcp-oauth';

const ENGINEER = FLIGHT_DECK.engineer; // an admin of Acme Rockets

async function look(page: Page, testInfo: TestInfo, name: string) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    await page.screenshot({ path: testInfo.outputPath(`${name}-${width}.jpeg`), fullPage: true, type: 'jpeg', quality: 80 });
    await expectNoSidewaysScroll(page, `${name} at ${width}`);
  }
  await expectAccessible(page);
  await page.setViewportSize({ width: 1280, height: 800 });
}

test.describe.configure({ mode: 'parallel' });

for (const language of supportedLocales()) {
  test.describe(`in ${language}`, () => {
    test.use({ locale: language });

    test('an admin gives an agent a key and a Kubernetes trust rule, and tests a workload token', async ({ page }, testInfo) => {
      test.setTimeout(120_000);
      const t = translator(language, 'console.agent');
      // A cluster of this test's own (the two languages run side by side in one organization).
      const CLUSTER_ISSUER = `https://k8s-${language.toLowerCase()}.cluster.example`;
      const errors = translator(language, 'refusals.agents.key');
      const name = `Cluster invoicer ${language} ${randomUUID().slice(0, 4)}`;
      await consoleSignIn(page, ENGINEER, /\/console\/acme-rockets\/apps$/);
      await page.goto('/console/acme-rockets/agents');
      await page.getByTestId('create-agent').locator('input[name="name"]').fill(name);
      await page.getByTestId('create-agent').locator('button[type="submit"]').click();
      const row = page.getByTestId(`agent-${name}`);
      await expect(row).toBeVisible();
      await page.goto(String(await row.getByRole('link', { name: translator(language, 'console.agents')('explainLink') }).getAttribute('href')));
      await expect(page.getByTestId('agent-client-id')).toHaveText(/^agt_/);
      await expect(page.getByTestId('agent-token-endpoint')).toHaveText(`${E2E_ISSUER}/oidc/token`);

      // A private key is refused next to its field, and what was typed stays.
      const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
      const keyForm = page.getByTestId('add-agent-key');
      const privateJwk = JSON.stringify(await exportJWK(privateKey));
      await keyForm.getByLabel(t('keys.publicKey')).fill(privateJwk);
      await keyForm.locator('button[type="submit"]').click();
      await expect(keyForm.getByTestId('field-error-agent-public-key')).toHaveText(errors('private'));
      await expect(keyForm.getByLabel(t('keys.publicKey'))).toHaveValue(privateJwk);
      await keyForm.getByLabel(t('keys.publicKey')).fill(JSON.stringify({ ...(await exportJWK(publicKey)), kid: 'invoicer-2026' }));
      await keyForm.locator('button[type="submit"]').click();
      await expect(page.getByTestId('agent-keys')).toContainText('invoicer-2026');

      // A Kubernetes rule, with the cluster's keys pasted (its issuer is not reachable from Portico).
      const cluster = await generateKeyPair('RS256', { modulusLength: 2048 });
      const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(cluster.publicKey)), kid: 'cluster-1', alg: 'RS256', use: 'sig' }] });
      const ruleForm = page.getByTestId('add-trust-rule');
      await ruleForm.getByLabel(t('federation.name'), { exact: true }).fill('Payments cluster');
      await ruleForm.getByLabel(t('federation.issuer'), { exact: true }).fill(CLUSTER_ISSUER);
      await ruleForm.getByLabel(t('federation.namespace'), { exact: true }).fill('Payments!');
      await ruleForm.getByLabel(t('federation.serviceAccount'), { exact: true }).fill('invoicer');
      await ruleForm.getByLabel(t('federation.jwks'), { exact: true }).fill(jwks);
      await ruleForm.locator('button[type="submit"]').click();
      await expect(ruleForm.getByTestId('field-error-rule-namespace')).toHaveText(translator(language, 'console.agents.errors.trustRule')('namespace'));
      await expect(ruleForm.getByLabel(t('federation.issuer'), { exact: true })).toHaveValue(CLUSTER_ISSUER);
      await look(page, testInfo, `agent-workload-refused-${language}`);
      await ruleForm.getByLabel(t('federation.namespace'), { exact: true }).fill('payments');
      await ruleForm.locator('button[type="submit"]').click();
      await expect(page.getByTestId('trust-rules')).toContainText('system:serviceaccount:payments:invoicer');

      // A projected service-account token of that cluster: the rule takes it; another namespace's, none does.
      const token = (namespace: string) =>
        new SignJWT({ 'kubernetes.io': { namespace, serviceaccount: { name: 'invoicer', uid: randomUUID() }, pod: { name: 'invoicer-0', uid: randomUUID() } } })
          .setProtectedHeader({ alg: 'RS256', kid: 'cluster-1' })
          .setIssuer(CLUSTER_ISSUER)
          .setSubject(`system:serviceaccount:${namespace}:invoicer`)
          .setAudience(E2E_ISSUER)
          .setIssuedAt()
          .setExpirationTime('1h')
          .setJti(randomUUID())
          .sign(cluster.privateKey);
      const tester = page.getByTestId('test-workload-token');
      await tester.locator('textarea').fill(await token('payments'));
      await tester.locator('button[type="submit"]').click();
      await expect(page.getByTestId('token-test-result')).toHaveAttribute('data-matched', 'yes');
      await expect(page.getByTestId('token-test-result')).toContainText(name);
      await tester.locator('textarea').fill(await token('marketing'));
      await tester.locator('button[type="submit"]').click();
      await expect(page.getByTestId('token-test-result')).toHaveAttribute('data-matched', 'no');
      await expect(page.getByTestId('token-test-verdict').first()).toContainText('system:serviceaccount:marketing:invoicer');
      await look(page, testInfo, `agent-workload-${language}`);
    });
  });
}

test.describe('a workload with no secret', () => {
  test('a Kubernetes-shaped token gets the agent’s token (openid-client), the MCP client calls the example app as the agent; disabled, it gets none and the app refuses the token it holds', async ({ page }) => {
    test.setTimeout(120_000);
    // The admin's REST: an agent, its own-mode connection to Flight Deck, the baseline permission, a trust rule.
    const apiToken = await accessTokenThroughConsent(page, E2E_ISSUER, { resource: `${E2E_ISSUER}/api/mcp`, scope: 'mcp', person: ENGINEER });
    const rest = (method: string, path: string, body?: unknown) =>
      fetch(`${E2E_ISSUER}/api/v1/orgs/acme-rockets${path}`, { method, headers: { Authorization: `Bearer ${apiToken}`, ...(body ? { 'Content-Type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    const { id: agentId } = (await (await rest('POST', '/agents', { name: `Nightly invoicer ${randomUUID().slice(0, 4)}` })).json()) as { id: string };
    expect((await confirmed(page, ENGINEER, (extra) => rest('POST', `/agents/${agentId}/grants`, { app_id: FLIGHT_DECK.appId, scope: 'mcp', ...extra }))).status).toBe(201);
    expect((await rest('POST', `/agents/${agentId}/connections`, { app_id: FLIGHT_DECK.appId, mode: 'own' })).status).toBe(201);
    const cluster = await generateKeyPair('RS256', { modulusLength: 2048 });
    const issuer = `https://k8s-${randomUUID().slice(0, 8)}.cluster.example`;
    const rule = await rest('POST', `/agents/${agentId}/trust-rules`, {
      name: 'Billing cluster',
      kind: 'kubernetes',
      issuer,
      jwks: { keys: [{ ...(await exportJWK(cluster.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] },
      namespace: 'billing',
      service_account: 'invoicer',
    });
    expect(rule.status, await rule.clone().text()).toBe(201);
    const serviceAccountToken = () =>
      new SignJWT({ 'kubernetes.io': { namespace: 'billing', serviceaccount: { name: 'invoicer', uid: randomUUID() }, pod: { name: 'invoicer-5c7d9', uid: randomUUID() } } })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(issuer)
        .setSubject('system:serviceaccount:billing:invoicer')
        .setAudience(E2E_ISSUER)
        .setIssuedAt()
        .setExpirationTime('1h')
        .setJti(randomUUID())
        .sign(cluster.privateKey);

    // Flight Deck listens to Shared Signals (a push stream to its /security-events, created with its own client).
    const basic = `Basic ${Buffer.from(`${FLIGHT_DECK.clientId}:${FLIGHT_DECK.clientSecret}`).toString('base64')}`;
    const created = await fetch(`${E2E_ISSUER}/api/ssf/streams`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/json' },
      body: JSON.stringify({ delivery: { method: 'urn:ietf:rfc:8935', endpoint_url: `${FLIGHT_DECK.origin}/security-events` }, events_requested: ['https://schemas.openid.net/secevent/risc/event-type/account-disabled'] }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { stream_id: streamId } = (await created.json()) as { stream_id: string };
    const app = await startFlightDeck();
    try {
      // The workload: its service-account token, through openid-client's jwt-bearer grant (portico-workload).
      const config = await oidc.discovery(new URL(E2E_ISSUER), 'portico-workload', undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
      const tokens = await oidc.genericGrantRequest(config, 'urn:ietf:params:oauth:grant-type:jwt-bearer', { assertion: await serviceAccountToken(), resource: FLIGHT_DECK.resource });
      expect(tokens.refresh_token).toBeUndefined();
      const whoami = async (token: string) => {
        const client = new Client({ name: 'nightly-job', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(FLIGHT_DECK.resource), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
        try {
          return JSON.parse(((await client.callTool({ name: 'whoami' })).content as { text: string }[])[0]!.text) as { sub: string; act: string | null };
        } finally {
          await client.close();
        }
      };
      expect(await whoami(tokens.access_token)).toMatchObject({ sub: agentId, act: null });

      // Disabled: the next token request is refused, and Flight Deck, told by Shared Signals, refuses the token held.
      expect((await rest('PATCH', `/agents/${agentId}`, { disabled: true })).status).toBe(200);
      await expect(oidc.genericGrantRequest(config, 'urn:ietf:params:oauth:grant-type:jwt-bearer', { assertion: await serviceAccountToken(), resource: FLIGHT_DECK.resource })).rejects.toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('disabled') });
      await expect.poll(() => app.securityEvents.some((event) => event.sub === agentId), { timeout: 30_000 }).toBe(true);
      await expect(whoami(tokens.access_token)).rejects.toThrow(/disabled/);
    } finally {
      await app.close();
      await fetch(`${E2E_ISSUER}/api/ssf/streams?stream_id=${streamId}`, { method: 'DELETE', headers: { authorization: basic } });
      await rest('DELETE', `/agents/${agentId}`);
    }
  });
});
