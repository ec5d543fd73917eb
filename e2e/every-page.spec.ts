// Every page of Portico, at a desktop (1280 px) and a phone (390 px) width, once in each language (the browser asks
// for it with Accept-Language): axe finds no serious or critical violation (at the phone width in English, at the
// desktop width in the others), nothing is wider than the screen (the Portuguese strings are longer), and a screenshot of
// each is kept in the artifacts (look at them). The page files
// are found on disk, so a page added later fails this test until it is visited here.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page, type TestInfo } from './support/test';
import { expectAccessible } from './support/accessibility';
import { consoleSignIn } from './support/console';
import { expectNoSidewaysScroll, keepScreenshot } from './support/layout';
import { DEMO, E2E_ISSUER, EVERYTHING_URL } from './support/constants';
import { demoRelyingParty, newAuthorizationRequest } from './support/relying-party';
import * as samlify from 'samlify';
import { supportedLocales, translator } from '../lib/i18n/catalogs';
import { samlKeyPair } from '../test/support/saml-idp';

const WIDTHS = [
  { name: '1280', width: 1280, height: 800 },
  { name: '390', width: 390, height: 844 },
] as const;

/** The route pattern of every page.tsx under app/ ("/console/[org]/apps/[app]"), private folders left out. */
function pagePatterns(dir = path.join(process.cwd(), 'app'), prefix = ''): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) {
      if (!entry.startsWith('_')) found.push(...pagePatterns(full, `${prefix}/${entry}`));
    } else if (entry === 'page.tsx') {
      found.push(prefix || '/');
    }
  }
  return found;
}

const visited = new Map<string, Set<string>>();
/** The language the pages are being checked in (each describe below sets it before its tests run). */
let pageLanguage = 'en';
const visitedIn = (language: string) => visited.get(language) ?? visited.set(language, new Set()).get(language)!;

/**
 * Opens `url` once and checks it at both widths (the layout follows the viewport; a reload per width added nothing
 * but time): axe, overflow and a screenshot each. Records which page file it covers.
 */
async function check(page: Page, testInfo: TestInfo, pattern: string, url: string, ready?: (page: Page) => Promise<void>) {
  // oidc-provider's own pages (/oidc/…) have no page file to account for.
  if (!pattern.startsWith('/oidc/')) visitedIn(pageLanguage).add(pattern);
  await page.setViewportSize({ width: WIDTHS[0].width, height: WIDTHS[0].height });
  const response = await page.goto(url);
  expect(response?.status(), `${url} answered`).toBeLessThan(500);
  if (ready) await ready(page);
  // 'load', not 'networkidle': the pages render on the server, and networkidle waited half a second more on each.
  await page.waitForLoadState('load');
  await expect(page.locator('html'), `${url} in ${pageLanguage}`).toHaveAttribute('lang', pageLanguage);
  for (const size of WIDTHS) {
    await page.setViewportSize({ width: size.width, height: size.height });
    const name = `${pattern.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '') || 'home'}-${size.name}.jpeg`;
    // JPEG: encoding a long page's PNG took about 60% longer in this software-rendered browser, and the pictures are
    // for reading, not for comparing pixels.
    await keepScreenshot(page, testInfo.outputPath(name), { type: 'jpeg', quality: 80 });
    // axe once per page and language, each width in one of them: the phone width in English, the desktop width in
    // the others (the markup is the same but for its words; the longer strings are what the overflow check below is
    // for, at every width). Twice per page instead of three times: about a minute of every run.
    if (size === (pageLanguage === 'en' ? WIDTHS[1] : WIDTHS[0])) await expectAccessible(page);
    await expectNoSidewaysScroll(page, url);
  }
}

// Each language is a serial group of its own (the last test counts what the two before it visited, in the same
// worker), and the groups may run in two lanes at once: the sweep is the suite's longest file (about eight minutes).
test.describe.configure({ mode: 'parallel' });

for (const language of supportedLocales()) {
  test.describe(`in ${language}`, () => {
    test.describe.configure({ mode: 'serial' });
    test.use({ locale: language });
    test.beforeAll(() => {
      pageLanguage = language;
    });
    test('signed out: the home page, the sign-in forms and every page a link in a mail opens', async ({ page }, testInfo) => {
      test.setTimeout(300_000);
      await check(page, testInfo, '/', '/');
      await check(page, testInfo, '/console/login', '/console/login');
      await check(page, testInfo, '/central', '/central');
      await check(page, testInfo, '/central/requests/[id]', '/central/requests/apr_aaaaaaaaaaaaaaaaaaaaaaaa');
      await check(page, testInfo, '/embedded-central/requests/[id]', '/embedded-central/requests/apr_aaaaaaaaaaaaaaaaaaaaaaaa');
      await check(page, testInfo, '/account/recover', '/account/recover');
      // Links that are no longer (or never were) valid answer a readable page; their valid states are checked by the
      // specs of their flows (accounts, two-step, approval-surfaces).
      await check(page, testInfo, '/account/password/[token]', '/account/password/not-a-valid-link-token');
      await check(page, testInfo, '/account/verify/[token]', '/account/verify/not-a-valid-link-token');
      await check(page, testInfo, '/invite/[token]', '/invite/not-a-valid-link-token');
      await check(page, testInfo, '/account/two-step-setup', '/account/two-step-setup');
      await check(page, testInfo, '/demo/callback', '/demo/callback?code=x&state=y');
      // The device grant's page where a person types the code their device shows (lib/oidc/device-flow.ts).
      await check(page, testInfo, '/oidc/device', '/oidc/device');
      // A real sign-in card of the demo app, and its "forgot password" page.
      const request = await newAuthorizationRequest(await demoRelyingParty(E2E_ISSUER));
      await page.goto(request.url.href);
      await page.waitForURL(/\/auth\/app\/[^/]+$/);
      const card = new URL(page.url()).pathname;
      await check(page, testInfo, '/auth/app/[uid]', card, (page) => expect(page.getByRole('heading', { name: translator(pageLanguage, 'signIn')('title', { app: 'Demo App' }) })).toBeVisible());
      await check(page, testInfo, '/auth/app/[uid]/recover', `${card}/recover`);
      // A sign-in through a company's identity provider: the link page (this browser has no sign-in to link: it says
      // so) and the refusal page (its flows are in enterprise-identity.spec.ts, on a Portico of its own).
      await check(page, testInfo, '/auth/federation/link', '/auth/federation/link');
      await check(page, testInfo, '/auth/federation/refused', `/auth/federation/refused?reason=invalid_response&back=${encodeURIComponent('/console/login?step=password')}`);
    });

    test('signed in to the console: every page of an organization, the account and the rest', async ({ page }, testInfo) => {
      test.setTimeout(600_000);
      await consoleSignIn(page, DEMO);
      // Something in the organization's audit log (and a team on the Teams page), whatever ran before this spec.
      await page.goto('/console/demo/teams');
      await page.getByTestId('create-team').locator('input[name="name"]').fill(`Reviewers ${Date.now()}`);
      await page.getByTestId('create-team').locator('button[type="submit"]').click();
      await expect(page.getByTestId('create-team').getByRole('status')).toBeVisible();
      await check(page, testInfo, '/console', '/console');
      await check(page, testInfo, '/console/account', '/console/account');
      await check(page, testInfo, '/console/orgs/new', '/console/orgs/new');
      await check(page, testInfo, '/console/inbox', '/console/inbox');
      await check(page, testInfo, '/console/confirm/[id]', '/console/confirm/cnf_aaaaaaaaaaaaaaaaaaaaaaaa');
      const org = '/console/demo';
      for (const section of ['apps', 'apps/new', 'clients', 'agents', 'members', 'teams', 'settings', 'settings/approvals', 'approvals', 'audit']) {
        await check(page, testInfo, `/console/[org]/${section}`, `${org}/${section}`);
      }
      await check(page, testInfo, '/console/[org]/[...missing]', `${org}/no-such-page`, (page) => expect(page.getByRole('heading', { name: translator(pageLanguage, 'notFound')('title') })).toBeVisible());

      // Pages of one thing: reached through the links a person would follow.
      await page.goto(`${org}/apps`);
      const app = await page.getByRole('link', { name: 'Demo App', exact: true }).getAttribute('href');
      for (const tab of ['', '/security', '/permissions', '/operators']) {
        await check(page, testInfo, `/console/[org]/apps/[app]${tab}`, `${app}${tab}`);
      }
      await page.goto(`${org}/members`);
      const member = await page.getByRole('link', { name: translator(pageLanguage, 'console.members.list')('permissionsOf', { email: DEMO.email }) }).getAttribute('href');
      await check(page, testInfo, '/console/[org]/members/[userId]', member!);
      await page.goto(`${org}/agents`);
      const agent = await page.getByRole('link', { name: translator(pageLanguage, 'console.agents')('explainLink') }).first().getAttribute('href');
      await check(page, testInfo, '/console/[org]/agents/[agentId]', agent!);
      await page.goto(`${org}/audit`);
      const event = await page.getByRole('link', { name: new RegExp(`^${translator(pageLanguage, 'console.auditTable')('eventLabel', { id: '', action: '' }).split(' ')[0]} `) }).first().getAttribute('href');
      await check(page, testInfo, '/console/[org]/audit/[id]', event!);

      // The gateway: the lane's server-everything put behind Portico from the console, its page with its tools.
      await check(page, testInfo, '/console/[org]/servers', `${org}/servers`);
      await check(page, testInfo, '/console/[org]/servers/new', `${org}/servers/new`);
      const addServer = page.getByTestId('add-server');
      await addServer.locator('input[name="name"]').fill(`Everything ${pageLanguage}`);
      await addServer.locator('input[name="slug"]').fill(`everything-${pageLanguage.toLowerCase()}`);
      await addServer.locator('input[name="url"]').fill(EVERYTHING_URL);
      await addServer.locator('button[type="submit"]').click();
      await page.waitForURL(/\/servers\/everything-[a-z-]+\?added=1$/);
      await check(page, testInfo, '/console/[org]/servers/[server]', new URL(page.url()).pathname);

      // Webhooks: an endpoint on a closed loopback port that subscribes to an event nothing here sends, removed after.
      await check(page, testInfo, '/console/[org]/settings/webhooks', `${org}/settings/webhooks`);
      const add = page.getByTestId('add-webhook');
      await add.locator('input[name="url"]').fill('https://localhost:1/every-page');
      await add.locator('input[value="approval.*"]').uncheck();
      await add.locator('input[value="approval.escalated"]').check();
      await add.locator('button[type="submit"]').click();
      await add.getByTestId('action-next').click();
      await page.waitForURL(/\/settings\/webhooks\/[0-9a-f-]{36}$/);
      const endpoint = new URL(page.url()).pathname;
      await check(page, testInfo, '/console/[org]/settings/webhooks/[endpoint]', endpoint);
      const webhooks = translator(pageLanguage, 'console.webhooks');
      await page.getByRole('button', { name: webhooks('endpoint.delete.submit') }).click();
      await page.getByRole('button', { name: webhooks('endpoint.delete.confirmLabel') }).click();
      await page.waitForURL(/\/settings\/webhooks$/);

      // Identity: a domain waiting for its proof, with what to publish; a value that is no domain refused at its field.
      const identity = translator(pageLanguage, 'console.identity');
      await page.goto(`${org}/settings/identity`);
      const addDomain = page.getByTestId('add-domain');
      await addDomain.locator('input[name="domain"]').fill('https://not a domain');
      await addDomain.locator('button[type="submit"]').click();
      await expect(addDomain.getByTestId('field-error-field-domain')).toBeVisible();
      await expect(addDomain.locator('input[name="domain"]')).toHaveValue('https://not a domain');
      const domain = `docs-${pageLanguage.toLowerCase()}.example`;
      await addDomain.locator('input[name="domain"]').fill(domain);
      await addDomain.locator('button[type="submit"]').click();
      const row = page.locator(`tr[data-domain="${domain}"]`);
      await expect(row).toContainText(`_portico-challenge.${domain}`);
      // A check finds nothing (.example names exist nowhere): the row says what each way saw.
      await row.getByRole('button', { name: identity('domains.check') }).click();
      await expect(row.getByTestId('domain-failure')).toBeVisible();
      // Done, but not a success: the check's answer reads as a warning, never in green.
      await expect(row.getByTestId('action-ok')).toHaveAttribute('data-tone', 'warning');
      await check(page, testInfo, '/console/[org]/settings/identity', `${org}/settings/identity`);
      await row.getByRole('button', { name: identity('domains.remove') }).click();
      await page.getByRole('button', { name: identity('domains.removeConfirmLabel') }).click();
      await expect(row).toHaveCount(0);
      // A connection's test result page, with no test run in this browser (its result: enterprise-identity.spec.ts).
      await check(page, testInfo, '/console/[org]/settings/identity/test', `${org}/settings/identity/test`);
      await check(page, testInfo, '/console/[org]/settings/identity/directory-sync', `${org}/settings/identity/directory-sync`);
      await check(page, testInfo, '/console/[org]/settings/identity/enterprise-authorization', `${org}/settings/identity/enterprise-authorization`);

      // A SAML connection made from its IdP's metadata, pasted as samlify (a SAML library nobody here wrote) writes
      // it; metadata whose sign-on takes only HTTP-POST is refused next to its field, keeping what was typed.
      const idpKeys = samlKeyPair(`every-page-${pageLanguage}`);
      const idpMetadata = (bindings: string[]) =>
        samlify
          .IdentityProvider({
            entityID: `https://idp.every-page.test/${pageLanguage}`,
            signingCert: idpKeys.certificate,
            singleSignOnService: bindings.map((Binding) => ({ Binding, Location: 'https://idp.every-page.test/sso' })),
            singleLogoutService: [{ Binding: samlify.Constants.namespace.binding.redirect, Location: 'https://idp.every-page.test/slo' }],
          })
          .getMetadata();
      await page.goto(`${org}/settings/identity/connections`);
      const samlDetails = page.getByTestId('add-saml-details');
      // Folded once the organization has a connection (the other language's sweep may have one at this moment).
      if ((await samlDetails.getAttribute('open')) === null) await samlDetails.locator('summary').click();
      const addSaml = page.getByTestId('add-saml-connection');
      const connectionName = `Metadata ${pageLanguage}`;
      await addSaml.locator('#saml-name').fill(connectionName);
      await addSaml.locator('#saml-metadataXml').fill(idpMetadata([samlify.Constants.namespace.binding.post]));
      await addSaml.locator('button[type="submit"]').click();
      await expect(addSaml.getByTestId('field-error-saml-metadataXml')).toContainText('HTTP-Redirect');
      await expect(addSaml.locator('#saml-name')).toHaveValue(connectionName);
      await addSaml.screenshot({ path: testInfo.outputPath(`add-saml-refused-${pageLanguage}.png`) });
      await addSaml.locator('#saml-metadataXml').fill(idpMetadata([samlify.Constants.namespace.binding.redirect]));
      await addSaml.locator('button[type="submit"]').click();
      await page.waitForURL(/\/settings\/identity\/connections\/[0-9a-f-]{36}$/);
      const connectionPage = new URL(page.url()).pathname;
      await expect(page.getByTestId('idp-entity-id')).toHaveText(`https://idp.every-page.test/${pageLanguage}`);
      await expect(page.getByTestId('idp-sso-url')).toHaveText('https://idp.every-page.test/sso');
      await check(page, testInfo, '/console/[org]/settings/identity/connections/[connection]', connectionPage);
      // Portico's own metadata, to download: a file, naming the entity ID the page shows.
      const download = await page.request.get((await page.getByTestId('download-sp-metadata').getAttribute('href'))!);
      expect(download.headers()['content-disposition']).toMatch(/^attachment; filename="portico-sp-metadata-[0-9a-f-]{36}\.xml"$/);
      expect(await download.text()).toContain(`entityID="${await page.getByTestId('sp-entity-id').textContent()}"`);
      await check(page, testInfo, '/console/[org]/settings/identity/connections', `${org}/settings/identity/connections`);
      await page.goto(connectionPage);
      await page.getByRole('button', { name: identity('connections.delete') }).click();
      await page.getByRole('button', { name: identity('connections.deleteConfirmLabel') }).click();
      await page.waitForURL(/\/settings\/identity\/connections$/);
      await expect(page.locator(`tr[data-connection="${connectionName}"]`)).toHaveCount(0);
    });

    test('no page is left out', () => {
      expect(pagePatterns().sort()).toEqual([...visitedIn(pageLanguage)].sort());
    });
  });
}
