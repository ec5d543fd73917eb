// An organization brings its own identity, end to end, on a Portico of its own (home realm discovery changes every
// sign-in page of an installation once a connection exists, so it does not run on the shared e2e server):
// the owner verifies company.test through a real DNS server, adds an OpenID Connect connection to a company IdP that
// is a bare oidc-provider (none of Portico's code), tests it, and makes a SCIM token; the company's directory
// provisions Grace with RFC 7644's request; Grace signs in to the demo app from its card by her address alone (home
// realm discovery → the company IdP → back), holds a refresh token, is deactivated by the directory and her refresh
// token gets invalid_grant while the console shows her gone; Lin, who already had a Portico account with a password,
// links it by proving that password, on the console; the central sends people to their IdP too.
import { expect, test, type Browser, type Page } from './support/test';
import { eq, sql } from 'drizzle-orm';
import * as oidc from 'openid-client';
import { hashPassword } from '../lib/accounts/factors/password';
import { createUser } from '../lib/accounts/users';
import { identityConnections } from '../lib/db/schema';
import { startDnsServer, type DnsServer } from '../test/support/dns-server';
import { startCompanyIdp, type CompanyIdp } from '../test/support/company-idp';
import { expectAccessible } from './support/accessibility';
import { DEMO } from './support/constants';
import { createStorage, startPortico, withStorageDatabase, type PorticoStorage, type RunningPortico } from './support/portico-process';
import { demoRelyingParty, ensureCallbackServer } from './support/relying-party';
import { loopbackTlsFiles } from './support/tls';

const PORT = 3226;
const ISSUER = `http://localhost:${PORT}`;
const LIN = { email: 'lin@company.test', password: 'lins-own-portico-password-7' };

test.describe('an organization brings its own identity', () => {
  let storage: PorticoStorage;
  let portico: RunningPortico;
  let dns: DnsServer;
  let idp: CompanyIdp;
  let environment: Record<string, string>;

  test.beforeAll(async () => {
    const tls = loopbackTlsFiles();
    dns = await startDnsServer();
    storage = await createStorage('portico-enterprise');
    environment = { NODE_EXTRA_CA_CERTS: tls.certPath, PORTICO_DNS_SERVERS: dns.address, PORTICO_OUTBOUND_ALLOW_LOOPBACK: 'true' };
    // The first start seeds the demo (only into an empty database); then, with no server running (the embedded
    // database belongs to one process), Lin's own Portico account from before her company connected its IdP.
    await (await startPortico(PORT, storage, environment)).stop();
    await withStorageDatabase(storage, async (db) => {
      await createUser(db, { email: LIN.email, name: 'Lin', passwordHash: await hashPassword(LIN.password) });
    });
    portico = await startPortico(PORT, storage, environment);
    await ensureCallbackServer();
  });
  test.afterAll(async () => {
    await portico?.stop();
    await idp?.close();
    await dns?.close();
    await storage?.dispose();
  });

  /** A browser of its own (no session), trusting the company IdP's loopback certificate as a company's browser would its IdP's. */
  const person = async (browser: Browser, locale = 'en-US'): Promise<Page> => (await browser.newContext({ baseURL: ISSUER, ignoreHTTPSErrors: true, locale })).newPage();

  async function ownerConsole(browser: Browser): Promise<Page> {
    const page = await person(browser);
    await page.goto('/console/login');
    await page.locator('input[name="email"]').fill(DEMO.email);
    await page.locator('input[name="password"]').fill(DEMO.password);
    await page.locator('form:has(input[name="password"]) button[type="submit"]').click();
    await page.waitForURL(/\/console\/demo\/apps$/);
    return page;
  }

  test('verify a domain, connect the company IdP, provision, sign in by address, deactivate, link an existing account', async ({ browser, request }, testInfo) => {
    test.setTimeout(180_000);
    const shot = (page: Page, name: string) => page.screenshot({ path: testInfo.outputPath(`${name}.png`), fullPage: true });

    // 1. The owner proves company.test by its DNS record.
    const owner = await ownerConsole(browser);
    await owner.goto('/console/demo/settings/identity');
    await owner.locator('#field-domain').fill('company.test');
    await owner.getByTestId('add-domain').getByRole('button').click();
    // The first actions of a fresh server (and of the embedded database) may take a few seconds.
    await expect(owner.locator('tr[data-domain="company.test"]')).toHaveAttribute('data-state', 'pending', { timeout: 30_000 });
    const value = /portico-domain-verification=[A-Za-z0-9_-]+/.exec(await owner.locator('tr[data-domain="company.test"]').innerText())![0];
    dns.txt.set('_portico-challenge.company.test', [value]);
    await owner.locator('tr[data-domain="company.test"]').getByRole('button', { name: 'Check now' }).click();
    await expect(owner.locator('tr[data-domain="company.test"]')).toHaveAttribute('data-state', 'verified', { timeout: 30_000 });

    // 2. The OpenID Connect connection. Its own redirect URI is on the form before it is added: the company's IdP
    // admin registers exactly that (RFC 9700 §4.4.2: one redirect URI per connection).
    await owner.goto('/console/demo/settings/identity/connections');
    const redirectUri = (await owner.getByTestId('add-oidc-details').locator('p code').first().textContent())!;
    expect(redirectUri).toMatch(new RegExp(`^${ISSUER}/auth/federation/oidc/[0-9a-f-]{36}/callback$`));
    idp = await startCompanyIdp({ redirectUris: [redirectUri] });
    // A wrong issuer is refused next to its field, keeping what was typed (and the redirect URI shown stays the same).
    const form = owner.getByTestId('add-oidc-connection');
    await form.locator('#oidc-name').fill('Company SSO');
    await form.locator('#oidc-issuer').fill(`${idp.issuer}/nowhere`);
    await form.locator('#oidc-clientId').fill(idp.clientId);
    await form.locator('#oidc-clientSecret').fill(idp.clientSecret);
    await form.getByLabel('company.test').check();
    await form.getByRole('button', { name: 'Add connection' }).click();
    await expect(form.getByTestId('field-error-oidc-issuer')).toBeVisible({ timeout: 30_000 });
    await expect(form.locator('#oidc-name')).toHaveValue('Company SSO');
    await form.locator('#oidc-issuer').fill(idp.issuer);
    await form.getByRole('button', { name: 'Add connection' }).click();
    // Added: the browser is on the connection's own page, which shows what to register.
    await owner.waitForURL(/\/settings\/identity\/connections\/[0-9a-f-]{36}$/, { timeout: 30_000 });
    const connectionPage = new URL(owner.url()).pathname;
    const connection = owner.locator('[data-connection="Company SSO"]');
    await expect(connection).toBeVisible();
    await expect(connection.getByTestId('connection-redirect-uri')).toHaveText(redirectUri);
    await expect(connection.getByTestId('legacy-callback')).toHaveCount(0);
    await expect(connection).toContainText('company.test');
    await shot(owner, 'identity-connection');
    await expectAccessible(owner);

    // 3. Test (the connection is still off): the owner signs in at the IdP as a test employee and sees the claims as
    // mapped; nothing is made.
    idp.person = { sub: 'tester-1', email: 'tester@company.test', email_verified: true, name: 'Test Employee', groups: ['staff'], amr: ['pwd'] };
    await connection.getByTestId('test-connection').click();
    await owner.waitForURL(/\/settings\/identity\/test\?connection=/);
    const result = owner.getByTestId('connection-test-result');
    await expect(result.locator('[data-claim="email"] dd')).toHaveText('tester@company.test');
    await expect(result.locator('[data-claim="groups"] dd')).toHaveText('staff');
    await expect(result.locator('[data-claim="amr"] dd')).toHaveText('fed pwd');
    await expect(result.locator('[data-claim="account"] dd')).toContainText('make a new account');
    await shot(owner, 'connection-test');
    await expectAccessible(owner);

    // A new connection starts off (nobody was sent to it while it was tested): the owner turns it on, from the
    // connection's page the test result links back to.
    await owner.getByRole('link', { name: 'Back to the connection' }).click();
    await owner.waitForURL((url) => url.pathname === connectionPage);
    await expect(connection).toHaveAttribute('data-enabled', 'no');
    await connection.getByRole('button', { name: 'Turn on' }).click();
    await expect(connection).toHaveAttribute('data-enabled', 'yes', { timeout: 30_000 });
    // Single sign-on can be required for its domains (the owners keep their password); tried on and off again here,
    // the refusal itself is tested in test/identity/enterprise-oidc.test.ts.
    await expect(connection.getByTestId('sso-required')).toContainText('Optional');
    await connection.getByRole('button', { name: 'Require single sign-on' }).click();
    await expect(connection.getByTestId('sso-required')).toContainText('Required', { timeout: 30_000 });
    await expectAccessible(owner);
    await shot(owner, 'identity-sso-required');
    await connection.getByRole('button', { name: 'Stop requiring single sign-on' }).click();
    await expect(connection.getByTestId('sso-required')).toContainText('Optional', { timeout: 30_000 });

    // 4. A SCIM token, shown once; the directory provisions Grace (RFC 7644 §3.3).
    await owner.goto('/console/demo/settings/identity/directory-sync');
    await owner.getByTestId('scim-token').getByRole('button', { name: 'Make a token' }).click();
    await expect(owner.getByTestId('secret-once')).toBeVisible({ timeout: 30_000 });
    const scimToken = (await owner.getByTestId('secret-once').innerText()).trim();
    expect(scimToken).toMatch(/^scim_/);
    const scim = (method: string, path: string, data?: unknown) =>
      request.fetch(`${ISSUER}/scim/v2/${path}`, { method, headers: { authorization: `Bearer ${scimToken}`, 'content-type': 'application/scim+json' }, data: data === undefined ? undefined : JSON.stringify(data) });
    const created = await scim('POST', 'Users', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'grace@company.test', name: { givenName: 'Grace', familyName: 'Hopper' }, emails: [{ value: 'grace@company.test', primary: true }] });
    expect(created.status()).toBe(201);
    const graceId = ((await created.json()) as { id: string }).id;
    expect((await scim('GET', `Users?filter=${encodeURIComponent('userName eq "grace@company.test"')}`).then((answer) => answer.json())) as { totalResults: number }).toMatchObject({ totalResults: 1 });

    // 5. Grace opens the demo app: the card asks for her address first and sends her to her company's IdP.
    idp.person = { sub: 'grace-sub', email: 'grace@company.test', email_verified: true, name: 'Grace Hopper', amr: ['pwd', 'otp', 'mfa'] };
    const rp = await demoRelyingParty(ISSUER);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const authorization = oidc.buildAuthorizationUrl(rp, { redirect_uri: DEMO.redirectUri, scope: 'openid email offline_access', prompt: 'consent', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state, nonce });
    const grace = await person(browser);
    await grace.goto(authorization.href);
    await expect(grace.locator('input[name="password"]')).toHaveCount(0);
    await shot(grace, 'email-first-card');
    await expectAccessible(grace);
    await grace.locator('input[name="email"]').fill('grace@company.test');
    await grace.getByRole('button', { name: 'Continue' }).click();
    await grace.waitForURL((url) => url.href.startsWith(DEMO.redirectUri));
    const tokens = await oidc.authorizationCodeGrant(rp, new URL(grace.url()), { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
    expect(tokens.claims()).toMatchObject({ sub: graceId, amr: ['fed', 'pwd', 'otp', 'mfa'], acr: 'urn:portico:acr:mfa' });
    const refreshed = await oidc.refreshTokenGrant(rp, tokens.refresh_token!);

    // 6. The directory deactivates Grace: her refresh token is refused, and the console shows her gone.
    const deactivated = await scim('PATCH', `Users/${graceId}`, { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'active', value: false }] });
    expect(deactivated.status()).toBe(200);
    await expect(oidc.refreshTokenGrant(rp, refreshed.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await owner.goto('/console/demo/members');
    await expect(owner.getByTestId('members')).toBeVisible();
    await expect(owner.getByTestId('members')).not.toContainText('grace@company.test');
    // And her company sign-in no longer brings her in: the directory's word stands.
    const again = await person(browser);
    await again.goto('/console/login');
    await again.locator('input[name="email"]').fill('grace@company.test');
    await again.getByRole('button', { name: 'Continue' }).click();
    await expect(again.getByTestId('federation-refused')).toHaveAttribute('data-reason', 'deactivated');
    await expectAccessible(again);

    // 7. Lin had a Portico account: her company sign-in links to it only after her own password (a wrong one first).
    idp.person = { sub: 'lin-sub', email: LIN.email, email_verified: true, name: 'Lin' };
    const lin = await person(browser);
    await lin.goto('/console/login');
    await lin.locator('input[name="email"]').fill(LIN.email);
    await lin.getByRole('button', { name: 'Continue' }).click();
    await lin.waitForURL(/\/auth\/federation\/link$/);
    await lin.getByLabel('Password').fill('not her password at all');
    await lin.getByRole('button', { name: 'Link and continue' }).click();
    await expect(lin.getByTestId('link-error')).toContainText('4 more tries');
    await shot(lin, 'link-existing-account');
    await expectAccessible(lin);
    await lin.getByLabel('Password').fill(LIN.password);
    await lin.getByRole('button', { name: 'Link and continue' }).click();
    await lin.waitForURL(/\/console\/(demo\/apps|account)$/);
    // Her account page lists the link, how it was made and when, and she could end it; her organization's owner sees
    // it too — in both languages, on a phone as well.
    await lin.goto('/console/account#links');
    const linkRow = lin.getByTestId('linked-identities').locator('tr[data-link="Company SSO"]');
    await expect(linkRow).toContainText('lin-sub');
    await expect(linkRow).toContainText("this account's password");
    await expect(lin.getByRole('button', { name: 'Remove this link' })).toBeVisible();
    await shot(lin, 'account-links');
    await expectAccessible(lin);
    await owner.goto('/console/demo/settings/identity/connections#linked-people');
    const linked = owner.getByTestId('linked-people').locator(`li[data-link="${LIN.email}"]`);
    await expect(linked).toContainText("the account's password");
    await expect(linked.getByRole('button', { name: 'End this link' })).toBeVisible();
    await expectAccessible(owner);
    for (const [locale, words] of [['pt-BR', ['a senha desta conta', 'a senha da conta']], ['en-US', ["this account's password", "the account's password"]]] as const) {
      // The same two signed-in people, in a browser that asks for `locale`.
      const [linHere, ownerHere] = await Promise.all(
        [lin, owner].map(async (page) => (await browser.newContext({ baseURL: ISSUER, locale, storageState: await page.context().storageState() })).newPage()),
      );
      for (const width of [1280, 390]) {
        await linHere!.setViewportSize({ width, height: 900 });
        await ownerHere!.setViewportSize({ width, height: 900 });
        await linHere!.goto('/console/account#links');
        await expect(linHere!.getByTestId('linked-identities')).toContainText(words[0]);
        await ownerHere!.goto('/console/demo/settings/identity/connections#linked-people');
        await expect(ownerHere!.getByTestId('linked-people')).toContainText(words[1]);
        for (const [page, name] of [[linHere!, 'account-links'], [ownerHere!, 'identity-linked-people']] as const) {
          expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${name} ${locale} ${width}`).toBe(true);
          await page.locator(name === 'account-links' ? '#links' : '#linked-people').screenshot({ path: testInfo.outputPath(`${name}-${locale}-${width}.png`) });
        }
        // axe once per page and language, as the every-page sweep does: the phone width in English, the desktop
        // width in Portuguese (the overflow check above runs at both).
        if (width === (locale === 'en-US' ? 390 : 1280)) {
          await expectAccessible(linHere!);
          await expectAccessible(ownerHere!);
        }
      }
      await Promise.all([linHere!.context().close(), ownerHere!.context().close()]);
    }

    // 8. The central asks for the address first as well, and Lin's company sign-in opens it (now linked: no password).
    const central = await person(browser);
    await central.goto('/central');
    await expect(central.locator('input[name="password"]')).toHaveCount(0);
    await central.locator('input[name="email"]').fill(LIN.email);
    await central.getByRole('button', { name: 'Continue' }).click();
    await central.waitForURL(/\/central$/);
    await expect(central.locator('input[name="email"]')).toHaveCount(0);

    // A person whose domain has no connection is asked for the password next, with the address kept.
    const other = await person(browser);
    await other.goto('/console/login');
    await other.locator('input[name="email"]').fill(DEMO.email);
    await other.getByRole('button', { name: 'Continue' }).click();
    await expect(other.locator('input[name="email"]')).toHaveValue(DEMO.email);
    await other.locator('input[name="password"]').fill(DEMO.password);
    await other.locator('form:has(input[name="password"]) button[type="submit"]').click();
    await other.waitForURL(/\/console\/demo\/apps$/);
  });

  test('enterprise-managed authorization: an outside MCP server for ID-JAGs, and the company IdP trusted for the apps', async ({ browser }, testInfo) => {
    // Runs after the test above, on its server: the connection "Company SSO" exists, so the sign-in asks for the
    // address first.
    const owner = await person(browser);
    await owner.goto('/console/login');
    await owner.locator('input[name="email"]').fill(DEMO.email);
    await owner.getByRole('button', { name: 'Continue' }).click();
    await owner.locator('input[name="password"]').fill(DEMO.password);
    await owner.locator('form:has(input[name="password"]) button[type="submit"]').click();
    await owner.waitForURL(/\/console\/demo\/apps$/);
    await owner.goto('/console/demo/settings/identity/enterprise-authorization');
    const section = owner.locator('#enterprise-authorization');
    await expect(section.getByText('No outside MCP server yet.')).toBeVisible();

    // A server whose address is not one is refused next to the field, keeping what was typed.
    const add = owner.getByTestId('add-remote-server');
    await add.locator('#remote-name').fill('Vendor notes');
    await add.locator('#remote-authorizationServer').fill('not an address');
    await add.locator('#remote-resource').fill('https://mcp.vendor.test/mcp');
    await add.locator('#remote-remoteClientId').fill('ext_agent_at_vendor');
    await add.locator('#remote-allowedScopes').fill('mcp notes:read');
    await add.getByRole('button', { name: 'Add server' }).click();
    await expect(add.getByTestId('field-error-remote-authorizationServer')).toBeVisible({ timeout: 30_000 });
    await expect(add.locator('#remote-name')).toHaveValue('Vendor notes');
    await expect(add.locator('#remote-allowedScopes')).toHaveValue('mcp notes:read');
    await add.locator('#remote-authorizationServer').fill('https://auth.vendor.test');
    await add.getByRole('button', { name: 'Add server' }).click();
    const server = section.locator('tr[data-server="Vendor notes"]');
    await expect(server).toBeVisible({ timeout: 30_000 });
    await expect(server).toContainText('https://auth.vendor.test');
    await expect(server).toContainText('mcp notes:read');

    // The company IdP's connection is trusted for ID-JAGs; an issuer by its keys needs an https JWKS URI.
    await owner.getByTestId('trust-connection').getByRole('button', { name: 'Trust connection' }).click();
    await expect(section.locator('[data-testid="trusted-issuers"] tr[data-issuer]')).toHaveCount(1, { timeout: 30_000 });
    await expect(section.getByTestId('trusted-issuers')).toContainText('Company SSO');
    const keys = owner.getByTestId('trust-issuer-keys');
    await keys.locator('#trust-issuer').fill('https://idp.partner.test');
    await keys.locator('#trust-jwksUri').fill('ftp://idp.partner.test/keys');
    await keys.getByRole('button', { name: 'Trust issuer' }).click();
    await expect(keys.getByTestId('field-error-trust-jwksUri')).toBeVisible({ timeout: 30_000 });
    await expect(keys.locator('#trust-issuer')).toHaveValue('https://idp.partner.test');
    await owner.screenshot({ path: testInfo.outputPath('enterprise-authorization.png'), fullPage: true });
    await expectAccessible(owner);
  });

  test('a connection from before per-connection callbacks: its notice in both languages and on a phone, single sign-on required in Portuguese, and the switch', async ({ browser }, testInfo) => {
    // Runs last, on the storage of the tests above. A connection made before migration 0050 still signs people in
    // through the shared callback for a while; the server is stopped to make "Company SSO" one (the embedded database
    // belongs to one process), then started again.
    await portico.stop();
    await withStorageDatabase(storage, async (db) => {
      await db.update(identityConnections).set({ legacyCallbackUntil: sql`now() + interval '60 days'` }).where(eq(identityConnections.name, 'Company SSO'));
    });
    portico = await startPortico(PORT, storage, environment);

    const words = {
      'pt-BR': { notice: 'Criada antes de cada conexão ter a sua própria URI', require: 'Exigir login único', stop: 'Deixar de exigir login único', required: 'Obrigatório', optional: 'Opcional', useOwn: 'Usar a URI de redirecionamento própria desta conexão' },
      'en-US': { notice: 'Made before each connection had its own redirect URI', require: 'Require single sign-on', stop: 'Stop requiring single sign-on', required: 'Required', optional: 'Optional', useOwn: "Switch to this connection's own redirect URI" },
    } as const;
    let owner: Page | undefined;
    let connectionPage: string | undefined;
    for (const locale of ['pt-BR', 'en-US'] as const) {
      owner = await person(browser, locale);
      await owner.goto('/console/login');
      await owner.locator('input[name="email"]').fill(DEMO.email);
      await owner.locator('form:has(input[name="email"]) button[type="submit"]').first().click();
      await owner.locator('input[name="password"]').fill(DEMO.password);
      await owner.locator('form:has(input[name="password"]) button[type="submit"]').click();
      await owner.waitForURL(/\/console\/demo\/apps$/, { timeout: 30_000 });
      const connection = owner.locator('div[data-connection="Company SSO"]');
      for (const width of [1280, 390]) {
        await owner.setViewportSize({ width, height: 900 });
        // The list links to the connection's own page (followed once; then its address is known).
        if (connectionPage) {
          await owner.goto(connectionPage);
        } else {
          await owner.goto('/console/demo/settings/identity/connections');
          await owner.locator('tr[data-connection="Company SSO"]').getByRole('link', { name: 'Company SSO' }).click();
          await owner.waitForURL(/\/settings\/identity\/connections\/[0-9a-f-]{36}$/);
          connectionPage = new URL(owner.url()).pathname;
        }
        const notice = connection.getByTestId('legacy-callback');
        await expect(notice).toContainText(words[locale].notice);
        await expect(notice).toContainText(`${ISSUER}/auth/federation/oidc/callback`);
        await expect(notice.getByRole('button', { name: words[locale].useOwn })).toBeVisible();
        // Single sign-on required, as a Portuguese-speaking admin turns it on and off, on a phone too.
        await expect(connection.getByTestId('sso-required')).toContainText(words[locale].optional);
        await connection.getByRole('button', { name: words[locale].require, exact: true }).click();
        await expect(connection.getByTestId('sso-required')).toContainText(words[locale].required, { timeout: 30_000 });
        expect(await owner.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `identity ${locale} ${width}`).toBe(true);
        await connection.screenshot({ path: testInfo.outputPath(`identity-legacy-connection-${locale}-${width}.png`) });
        if (width === (locale === 'en-US' ? 390 : 1280)) await expectAccessible(owner);
        await connection.getByRole('button', { name: words[locale].stop }).click();
        await expect(connection.getByTestId('sso-required')).toContainText(words[locale].optional, { timeout: 30_000 });
      }
      if (locale === 'pt-BR') await owner.context().close();
    }
    // The switch: the notice is gone and the connection's own redirect URI is the only one it answers on.
    const connection = owner!.locator('div[data-connection="Company SSO"]');
    await connection.getByTestId('legacy-callback').getByRole('button', { name: words['en-US'].useOwn }).click();
    await expect(connection.getByTestId('legacy-callback')).toHaveCount(0, { timeout: 30_000 });
    await expect(connection.getByTestId('connection-redirect-uri')).toHaveText(new RegExp(`^${ISSUER}/auth/federation/oidc/[0-9a-f-]{36}/callback$`));
  });
});
