// The agent page's workload sections (issue 59), as an admin uses them in each language: a public key added (a
// private one refused next to its field, what was typed kept), a Kubernetes trust rule added (a bad namespace refused
// next to its field, the form keeping the rest), and "Test a workload token" saying which rule takes a token signed
// by the cluster key the rule holds, and why another namespace's is taken by none. Each state is checked at 1280 and
// 390 px: axe, no sideways scroll, a screenshot to look at.
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import { expect, test, type Page, type TestInfo } from './support/test';
import { expectAccessible } from './support/accessibility';
import { expectNoSidewaysScroll } from './support/layout';
import { consoleSignIn } from './support/console';
import { E2E_ISSUER } from './support/constants';
import { FLIGHT_DECK } from './support/fixtures';
import { supportedLocales, translator } from '../lib/i18n/catalogs';

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
