// "Ask my person to approve this action", end to end: an admin turns CIBA on for Rocket Launcher in the console; the
// app's backend (the app kit's createApprovalRequests, i.e. openid-client's initiateBackchannelAuthentication and
// pollBackchannelAuthenticationGrant) asks a member to approve one tool call; the member gets the mail, opens the
// request in Chromium, sees the binding message and the call, and approves with their passkey (Chromium's virtual
// authenticator); the backend receives the token, and the kit's verifyApprovedAction accepts it for exactly that
// call, once.
import { expect, test, type BrowserContext, type Page } from './support/test';
import * as oidc from 'openid-client';
import { ApprovedActionRefusal, createAppKit, createApprovalRequests, type AppKit } from '../app-kit';
import { expectAccessible } from './support/accessibility';
import { consoleSignIn } from './support/console';
import { E2E_ISSUER, lanePort } from './support/constants';
import { FLIGHT_DECK, ROCKETS } from './support/fixtures';
import { linkPath, waitForMail } from './support/mail';

test.describe.configure({ mode: 'serial' });

const SECURITY_TAB = `/console/acme-rockets/apps/${ROCKETS.appId}/security`;
const PERSON = ROCKETS.approver;
const CALL = { tool: 'launch.abort', arguments: { rocket: 'R-7', reason: 'weather' } } as const;

let context: BrowserContext;
let page: Page;
let surfaceSecret = '';
let kit: AppKit;

const approvals = () => createApprovalRequests({ issuer: E2E_ISSUER, clientId: ROCKETS.clientId, clientSecret: ROCKETS.clientSecret, origin: `http://127.0.0.1:${lanePort(4997)}` });

test.beforeAll(async ({ browser }) => {
  context = await browser.newContext({ baseURL: E2E_ISSUER });
  page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
});
test.afterAll(async () => context?.close());

test('an admin turns CIBA on for the app (off by default) and gives it a surface secret', async ({ browser }, testInfo) => {
  const adminContext = await browser.newContext({ baseURL: E2E_ISSUER });
  const admin = await adminContext.newPage();
  // Off: the backend is refused.
  await expect(approvals().ask({ person: PERSON.email, bindingMessage: 'Abort R-7?', actions: [CALL] })).rejects.toMatchObject({ error: 'unauthorized_client' });
  await consoleSignIn(admin, FLIGHT_DECK.engineer);
  await admin.goto(SECURITY_TAB);
  const panel = admin.getByTestId('backchannel-approval');
  await expect(admin.getByTestId('ciba-state')).toContainText('Off');
  await panel.getByRole('button', { name: 'Turn on' }).click();
  await expect(admin.getByTestId('ciba-state')).toContainText('On');
  await expectAccessible(admin);
  await admin.screenshot({ path: testInfo.outputPath('security-ciba-on.png'), fullPage: true });
  await admin.getByTestId('surface-secret').getByRole('button', { name: 'Create surface secret' }).click();
  const shown = await admin.getByTestId('surface-secret').getByTestId('secret-once').textContent();
  surfaceSecret = /PORTICO_SURFACE_SECRET=(pss_[A-Za-z0-9_-]+)/.exec(shown ?? '')![1]!;
  kit = createAppKit({ issuer: E2E_ISSUER, appIdentity: ROCKETS.identity, origin: `http://127.0.0.1:${lanePort(4997)}`, clientId: ROCKETS.clientId, surfaceSecret });
  await adminContext.close();
});

test('the person adds a passkey', async () => {
  await consoleSignIn(page, PERSON);
  await page.goto('/console/account#passkeys');
  const add = page.getByTestId('add-passkey');
  await add.getByLabel('Name for this passkey').fill('Phone');
  await add.getByLabel('Your password').fill(PERSON.password);
  await add.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByTestId('add-passkey-done').getByRole('link', { name: 'I have stored them' }).click();
  await expect(page.getByTestId('passkey-list')).toContainText('Phone');
});

test('the backend asks, the person approves with their passkey, the token carries the call and serves it once', async ({}, testInfo) => {
  const since = Date.now();
  const answer = approvals().ask({ person: PERSON.email, bindingMessage: 'Abort R-7? Code 4411', actions: [CALL] });
  answer.catch(() => {}); // awaited below; a rejection meanwhile is not unhandled
  const mail = await waitForMail(PERSON.email, /Approve or deny: a request from/, since);
  expect(mail.text).toContain('Abort R-7? Code 4411');
  await page.goto(linkPath(mail));
  await expect(page.getByTestId('binding-message')).toHaveText('Abort R-7? Code 4411');
  const details = page.getByTestId('authorization-details');
  await expect(details).toContainText('launch.abort');
  await expect(details).toContainText('"reason": "weather"');
  await expectAccessible(page);
  await page.screenshot({ path: testInfo.outputPath('ciba-request.png'), fullPage: true });
  await page.getByRole('button', { name: 'Approve with passkey' }).click();
  await expect(page.getByTestId('confirmation-done')).toContainText('Approved');
  await page.screenshot({ path: testInfo.outputPath('ciba-approved.png'), fullPage: true });

  const { accessToken, authorizationDetails } = await answer;
  expect(authorizationDetails).toEqual([expect.objectContaining({ type: 'portico_tool_call', tool: 'launch.abort', arguments: CALL.arguments })]);
  // Another call (other arguments) is not what was approved; the approved one runs once.
  await expect(kit.verifyApprovedAction(accessToken, { tool: 'launch.abort', arguments: { rocket: 'R-8', reason: 'weather' } })).rejects.toMatchObject({ code: 'not_approved' });
  const approved = await kit.verifyApprovedAction(accessToken, CALL);
  expect(approved.detail).toMatchObject({ tool: 'launch.abort' });
  const again = await kit.verifyApprovedAction(accessToken, CALL).catch((error: unknown) => error);
  expect(again).toBeInstanceOf(ApprovedActionRefusal);
  expect(again).toMatchObject({ code: 'already_used' });
});

test('a denial reaches the backend as access_denied; the request page says it is closed', async ({}, testInfo) => {
  const since = Date.now();
  // Its outcome is taken at once (an answer that arrives while the page is being used is never an unhandled rejection).
  const answer = approvals()
    .ask({ person: PERSON.email, bindingMessage: 'Abort R-9?', actions: [{ type: 'portico_action', description: 'Abort launch R-9', target: 'Pad 39A', amount: { value: '1250.00', currency: 'BRL' } }] })
    .then(
      () => 'approved',
      (error: unknown) => error,
    );
  const mail = await waitForMail(PERSON.email, /Approve or deny: a request from/, since);
  await page.goto(linkPath(mail));
  await expect(page.getByTestId('authorization-details')).toContainText('Pad 39A');
  // Money in the reader's language, and the app (not an agent) is who would be saying yes without them.
  await expect(page.getByTestId('authorization-details')).toContainText('R$1,250.00');
  await expect(page.getByText('not the app, are saying yes')).toBeVisible();
  await page.getByRole('button', { name: 'Deny' }).click();
  await expect(page.getByTestId('confirmation-done')).toContainText('Denied');
  const outcome = await answer;
  expect(outcome).toBeInstanceOf(oidc.ResponseBodyError);
  expect(outcome).toMatchObject({ error: 'access_denied' });
  await page.reload();
  await expect(page.getByTestId('confirmation-closed')).toContainText('You denied this request');
  await page.screenshot({ path: testInfo.outputPath('ciba-denied.png'), fullPage: true });
});
