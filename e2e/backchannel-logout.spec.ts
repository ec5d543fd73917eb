// Revocation that reaches the apps (OpenID Connect Back-Channel Logout 1.0). Signal Deck is the example app (built on
// the app kit) with its logout URI registered: a person signed in to it in one tab is signed out of it within seconds
// when an admin removes them, when their password is reset, and when the app's access is revoked — each time the
// app received a logout token naming that person and their session, and the console's delivery log says why. The
// Intranet is Apache httpd with mod_auth_openidc, a relying party nobody here wrote: removing its user in Portico
// ends its session too.
import { expect, test, type Browser, type Page } from './support/test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startExampleApp, type ExampleApp } from '../examples/notes/app';
import { expectAccessible } from './support/accessibility';
import { apacheAvailable, startApacheRelyingParty, type ApacheRelyingParty } from './support/apache-rp';
import { consoleSignIn } from './support/console';
import { E2E_ISSUER } from './support/constants';
import { FLIGHT_DECK, SIGNAL_DECK } from './support/fixtures';
import { linkPath, waitForMail } from './support/mail';
import { fillSignIn } from './support/relying-party';

const ADMIN = FLIGHT_DECK.engineer;
const ORG = 'acme-rockets';

let app: ExampleApp | undefined;
let apache: ApacheRelyingParty | undefined;

test.beforeAll(async () => {
  app = await startExampleApp({
    origin: SIGNAL_DECK.origin,
    issuer: E2E_ISSUER,
    appIdentity: SIGNAL_DECK.identity,
    clientId: SIGNAL_DECK.clientId,
    clientSecret: SIGNAL_DECK.clientSecret,
    name: SIGNAL_DECK.appName,
    declareOnStart: false,
  });
});

test.afterAll(async () => {
  await app?.close();
  await apache?.stop();
});

async function newPage(browser: Browser): Promise<Page> {
  return (await browser.newContext()).newPage();
}

/** The person signs in to Signal Deck in a tab of their own, which stays open. */
async function signedInToSignalDeck(browser: Browser, person: { email: string; password: string; name: string }): Promise<Page> {
  const tab = await newPage(browser);
  await tab.goto(SIGNAL_DECK.origin);
  await tab.getByRole('link', { name: 'Sign in with Portico' }).click();
  await tab.waitForURL((url) => url.href.startsWith(E2E_ISSUER));
  await fillSignIn(tab, person.email, person.password);
  await tab.waitForURL(`${SIGNAL_DECK.origin}/`);
  await expect(tab.getByTestId('signed-in')).toContainText(person.name);
  return tab;
}

/** The open tab notices by itself (it asks the app every 2 seconds) that its session is gone. */
async function expectSignedOut(tab: Page) {
  await expect(tab.getByRole('link', { name: 'Sign in with Portico' })).toBeVisible({ timeout: 20_000 });
  await expect(tab.getByTestId('signed-in')).toHaveCount(0);
}

/** What the app received: one logout token for the person, naming the session its ID token named. */
function expectOneLogout(since: number) {
  const received = app!.logouts.slice(since);
  expect(received).toHaveLength(1);
  expect(received[0]!.sub).toMatch(/^[0-9a-f-]{36}$/);
  expect(received[0]!.sid).toEqual(expect.any(String));
  return received[0]!;
}

/** The app's page in the console lists the delivery, with its reason, as delivered (reloaded until it is). */
async function expectLoggedReason(admin: Page, appId: string, reason: string, words?: string) {
  await expect(async () => {
    await admin.goto(`/console/${ORG}/apps/${appId}`);
    const row = admin.getByTestId('logout-deliveries').locator(`tr[data-reason="${reason}"]`).first();
    if (words) await expect(row).toContainText(words, { timeout: 1000 });
    await expect(row).toHaveAttribute('data-state', 'delivered', { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
}

test('removing a member signs their open Signal Deck tab out, and the app’s delivery log says why', async ({ browser }, testInfo) => {
  const tab = await signedInToSignalDeck(browser, SIGNAL_DECK.leaver);
  const before = app!.logouts.length;
  const admin = await newPage(browser);
  await consoleSignIn(admin, ADMIN);
  await admin.goto(`/console/${ORG}/members`);
  await admin.getByRole('link', { name: `Manage ${SIGNAL_DECK.leaver.email}` }).click();
  await admin.getByTestId('membership').getByRole('button', { name: 'Remove' }).click();
  await admin.getByTestId('membership').getByRole('button', { name: 'Yes, remove' }).click();
  // Back on the list, where they no longer are.
  await admin.waitForURL(new RegExp(`/console/${ORG}/members\\?removed=1$`));
  await expect(admin.locator(`tr[data-email="${SIGNAL_DECK.leaver.email}"]`)).toHaveCount(0, { timeout: 10_000 });

  await expectSignedOut(tab);
  expectOneLogout(before);
  await tab.screenshot({ path: testInfo.outputPath('signal-deck-signed-out.png'), fullPage: true });

  await expectLoggedReason(admin, SIGNAL_DECK.appId, 'member_removed', 'Removed from the organization');
  await expect(admin.getByTestId('backchannel-logout-current')).toContainText(SIGNAL_DECK.backchannelLogoutUri);
  // A URI the server refuses: the form says why next to the field and keeps what was typed.
  const form = admin.getByTestId('set-backchannel-logout');
  await form.getByLabel('Back-channel logout URI').fill('http://signal.example/logout');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form.locator('[data-testid^="field-error-"]')).toContainText('https');
  await expect(form.getByLabel('Back-channel logout URI')).toHaveValue('http://signal.example/logout');
  await admin.getByTestId('backchannel-logout').scrollIntoViewIfNeeded();
  await admin.screenshot({ path: testInfo.outputPath('app-backchannel-logout.png'), fullPage: true });
  await expectAccessible(admin);
});

test('a password reset signs the person out of the app', async ({ browser }) => {
  const tab = await signedInToSignalDeck(browser, SIGNAL_DECK.resetter);
  const before = app!.logouts.length;
  const since = Date.now();
  const admin = await newPage(browser);
  await consoleSignIn(admin, ADMIN);
  await admin.goto(`/console/${ORG}/members`);
  await admin.getByTestId('members').getByRole('link', { name: `Manage ${SIGNAL_DECK.resetter.email}` }).click();
  const membership = admin.getByTestId('membership');
  await membership.getByRole('button', { name: 'Send password reset link' }).click();
  await membership.getByRole('button', { name: 'Yes, send the link' }).click();
  await expect(membership.getByTestId('action-ok')).toBeVisible();
  const reset = await waitForMail(SIGNAL_DECK.resetter.email, /Reset your password/, since);
  // The person opens the link in another tab of the same browser and chooses a new password.
  const mailTab = await tab.context().newPage();
  await mailTab.goto(new URL(linkPath(reset), E2E_ISSUER).href);
  await mailTab.getByLabel('New password').fill('resetter chose a brand new phrase');
  await mailTab.getByRole('button', { name: 'Save the new password' }).click();
  await expect(mailTab.getByTestId('set-password-done')).toBeVisible();

  await expectSignedOut(tab);
  expectOneLogout(before);
  await expectLoggedReason(admin, SIGNAL_DECK.appId, 'credentials_changed', 'Password changed or reset');
});

test('revoking the app’s access signs everyone out of it', async ({ browser }) => {
  const tab = await signedInToSignalDeck(browser, SIGNAL_DECK.revoked);
  const before = app!.logouts.length;
  const admin = await newPage(browser);
  await consoleSignIn(admin, ADMIN);
  await admin.goto(`/console/${ORG}/apps/${SIGNAL_DECK.appId}/security`);
  const revoke = admin.getByTestId('revoke-access');
  await revoke.getByRole('button', { name: 'Revoke all sessions' }).click();
  await revoke.getByRole('button', { name: 'Yes, revoke' }).click();
  await expect(revoke.getByRole('status')).toContainText('Revoked');

  await expectSignedOut(tab);
  expectOneLogout(before);
  await expectLoggedReason(admin, SIGNAL_DECK.appId, 'access_revoked', 'Access revoked');
});

test('Apache with mod_auth_openidc: removing its user in Portico ends the Apache session', async ({ browser }, testInfo) => {
  expect(apacheAvailable(), 'Debian’s apache2 and libapache2-mod-auth-openidc are installed (.ci/run installs them)').toBe(true);
  const { intranet } = SIGNAL_DECK;
  apache = await startApacheRelyingParty({ port: intranet.port, issuer: E2E_ISSUER, clientId: intranet.clientId, clientSecret: intranet.clientSecret });
  expect(apache.backchannelLogoutUri).toBe(intranet.backchannelLogoutUri);

  const tab = await newPage(browser);
  await tab.goto(apache.protectedUrl);
  await tab.waitForURL((url) => url.href.startsWith(E2E_ISSUER));
  await fillSignIn(tab, intranet.person.email, intranet.person.password);
  await tab.waitForURL((url) => url.href.startsWith(apache!.protectedUrl));
  await expect(tab.getByText('Signed in to Apache')).toBeVisible();
  await expect(tab.locator('body')).toContainText(intranet.person.email);
  await testInfo.attach('apache-error-log', { body: apache.errorLog(), contentType: 'text/plain' });

  const admin = await newPage(browser);
  await consoleSignIn(admin, ADMIN);
  await admin.goto(`/console/${ORG}/members`);
  await admin.getByRole('link', { name: `Manage ${intranet.person.email}` }).click();
  await admin.getByTestId('membership').getByRole('button', { name: 'Remove' }).click();
  await admin.getByTestId('membership').getByRole('button', { name: 'Yes, remove' }).click();
  await admin.waitForURL(new RegExp(`/console/${ORG}/members\\?removed=1$`));
  await expect(admin.locator(`tr[data-email="${intranet.person.email}"]`)).toHaveCount(0, { timeout: 10_000 });

  // Delivered (mod_auth_openidc answered 200 to Portico's POST), then the Apache session is gone: the protected page
  // sends the browser back to Portico instead of showing it.
  await expectLoggedReason(admin, SIGNAL_DECK.intranet.appId, 'member_removed');
  const answer = await tab.request.get(apache.protectedUrl, { maxRedirects: 0 });
  expect(answer.status(), apache.errorLog().slice(-2000)).toBe(302);
  expect(answer.headers().location).toContain(`${E2E_ISSUER}/oidc/auth`);
  await tab.goto(apache.protectedUrl);
  await expect(tab.getByText('Signed in to Apache')).toHaveCount(0);
});

test('Shared Signals over HTTP: discovery, a poll stream created with the app’s credentials, a verification event verified against the JWKS', async ({ browser }, testInfo) => {
  const configuration = (await (await fetch(`${E2E_ISSUER}/.well-known/ssf-configuration`)).json()) as Record<string, string>;
  expect(configuration).toMatchObject({ spec_version: '1_0', issuer: E2E_ISSUER, jwks_uri: `${E2E_ISSUER}/oidc/jwks` });
  const authorization = `Basic ${Buffer.from(`${SIGNAL_DECK.clientId}:${SIGNAL_DECK.clientSecret}`).toString('base64')}`;
  const headers = { authorization, 'content-type': 'application/json' };
  expect((await fetch(configuration.configuration_endpoint!, { headers: { authorization: 'Basic eDp5' } })).status).toBe(401);
  const created = await fetch(configuration.configuration_endpoint!, { method: 'POST', headers, body: JSON.stringify({ delivery: { method: 'urn:ietf:rfc:8936' }, events_requested: ['https://schemas.openid.net/secevent/caep/event-type/session-revoked'] }) });
  expect(created.status).toBe(201);
  const stream = (await created.json()) as { stream_id: string; delivery: { endpoint_url: string } };
  expect((await fetch(configuration.verification_endpoint!, { method: 'POST', headers, body: JSON.stringify({ stream_id: stream.stream_id, state: 'e2e' }) })).status).toBe(204);
  const polled = (await (await fetch(stream.delivery.endpoint_url, { method: 'POST', headers, body: JSON.stringify({ maxEvents: 5 }) })).json()) as { sets: Record<string, string> };
  const [token] = Object.values(polled.sets);
  const { payload } = await jwtVerify(token!, createRemoteJWKSet(new URL(configuration.jwks_uri!)), { issuer: E2E_ISSUER, audience: SIGNAL_DECK.clientId, typ: 'secevent+jwt' });
  expect(payload.events).toEqual({ 'https://schemas.openid.net/secevent/ssf/event-type/verification': { state: 'e2e' } });
  // The app's page in the console lists the stream (read-only: the app manages it).
  const admin = await newPage(browser);
  await consoleSignIn(admin, ADMIN);
  await admin.goto(`/console/${ORG}/apps/${SIGNAL_DECK.appId}`);
  const row = admin.getByTestId('ssf-streams').locator(`tr[data-stream="${stream.stream_id}"]`);
  await expect(row).toContainText('Polled by the app');
  await expect(row).toContainText('caep/event-type/session-revoked');
  await admin.getByTestId('shared-signals').screenshot({ path: testInfo.outputPath('app-shared-signals.png') });
  expect((await fetch(`${configuration.configuration_endpoint}?stream_id=${stream.stream_id}`, { method: 'DELETE', headers: { authorization } })).status).toBe(204);
});
