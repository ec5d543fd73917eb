// The org admin console through a real browser: every page by an admin, every admin action refused to a member
// (also when the server action is posted directly), and exactly one audit event per change.
import { expect, test, type Browser, type Page, type Request } from './support/test';
import { DEMO, E2E_ISSUER } from './support/constants';
import { ROCKETS } from './support/fixtures';
import { consoleSignIn } from './support/console';
import { expectAccessible } from './support/accessibility';
import { linkPath, waitForMail } from './support/mail';

async function auditEvents(page: Page): Promise<{ action: string; actorLabel: string; subjectLabel: string | null }[]> {
  const response = await page.request.get('/console/demo/audit/export?format=json');
  expect(response.status()).toBe(200);
  return response.json();
}

/** Runs a UI action and asserts it wrote exactly one audit event, of this type, by this actor. */
async function expectOneEvent(page: Page, action: string, run: () => Promise<void>) {
  const before = (await auditEvents(page)).length;
  await run();
  await expect.poll(async () => (await auditEvents(page)).length).toBe(before + 1);
  const [latest] = await auditEvents(page);
  expect(latest).toMatchObject({ action, actorLabel: DEMO.email });
}

async function submit(page: Page, form: string, button: string) {
  await page.getByTestId(form).getByRole('button', { name: button }).click();
}

test.describe.configure({ mode: 'serial' });

test.describe('the console, as an admin', () => {
  test('apps: list, create (credentials once), edit, redirect URIs', async ({ page }, testInfo) => {
    await consoleSignIn(page, DEMO);
    await expect(page.getByRole('heading', { name: 'Apps' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Demo App' })).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath('apps.png'), fullPage: true });

    await page.getByRole('link', { name: 'New app' }).click();
    await page.getByLabel('Name').fill('Invoices');
    await page.getByLabel('Publish address').fill('https://invoices.demo.test');
    await page.getByLabel('Redirect URI').fill('https://invoices.demo.test/callback');
    await expectOneEvent(page, 'app.created', () => submit(page, 'create-app', 'Create app'));
    // On to the app's own page, with its credentials shown once there (never in the URL).
    await page.waitForURL(/\/console\/demo\/apps\/[0-9a-f-]{36}$/);
    const secret = page.getByTestId('new-credentials').getByTestId('secret-once');
    await expect(secret).toContainText('PORTICO_CLIENT_SECRET=');
    await expect(secret).toContainText(`PORTICO_ISSUER=${E2E_ISSUER}`);
    expect(page.url()).not.toContain('SECRET');
    await page.screenshot({ path: testInfo.outputPath('app-created.png'), fullPage: true });
    await expectAccessible(page);
    // Another browser session of the same person, sent to the same page, is not shown them.
    const elsewhere = await page.context().browser()!.newPage();
    await consoleSignIn(elsewhere, DEMO);
    await elsewhere.goto(page.url());
    await expect(elsewhere.getByTestId('app-env')).toBeVisible();
    await expect(elsewhere.getByTestId('new-credentials')).toHaveCount(0);
    await elsewhere.close();
    // Stored: they are gone, also after a reload.
    await page.getByTestId('credentials-stored').click();
    await expect(page.getByTestId('new-credentials')).toHaveCount(0);
    await page.reload();
    await expect(page.getByTestId('new-credentials')).toHaveCount(0);

    await page.goto('/console/demo/apps');
    await page.getByRole('link', { name: 'Invoices' }).click();
    await expect(page.getByTestId('app-env')).toContainText('PORTICO_APP_IDENTITY=urn:portico:app:');
    await expect(page.getByTestId('app-env')).not.toContainText('PORTICO_CLIENT_SECRET=');
    // What signs its ID tokens, next to its credentials: RS256, what relying parties assume unless told; ES256 is a
    // choice there, and back.
    await expect(page.getByTestId('id-token-alg')).toContainText('ID tokens are signed with RS256');
    await page.getByTestId('id-token-alg-form').getByLabel('ID token signing algorithm').selectOption('ES256');
    await expectOneEvent(page, 'app.id_token_alg_changed', () => submit(page, 'id-token-alg-form', 'Change algorithm'));
    await expect(page.getByTestId('id-token-alg')).toContainText('ID tokens are signed with ES256');
    await page.getByTestId('id-token-alg-form').getByLabel('ID token signing algorithm').selectOption('RS256');
    await expectOneEvent(page, 'app.id_token_alg_changed', () => submit(page, 'id-token-alg-form', 'Change algorithm'));
    await expect(page.getByTestId('id-token-alg')).toContainText('ID tokens are signed with RS256');
    // Relying parties without PKCE: refused by default; allowed (audited) and required again on the security tab.
    const appUrl = page.url();
    await page.goto(`${appUrl}/security`);
    const pkceState = page.getByTestId('nonce-without-pkce-state');
    await expect(pkceState).toContainText('Not allowed: every sign-in needs PKCE.');
    await expectOneEvent(page, 'app.nonce_without_pkce_allowed', () => submit(page, 'nonce-without-pkce-toggle', 'Allow relying parties that send a nonce but no PKCE'));
    await expect(pkceState).toContainText('Allowed: relying parties that send a nonce but no PKCE may sign in.');
    await expectOneEvent(page, 'app.nonce_without_pkce_forbidden', () => submit(page, 'nonce-without-pkce-toggle', 'Require PKCE again'));
    await expect(pkceState).toContainText('Not allowed: every sign-in needs PKCE.');
    await page.goto(appUrl);

    // A sign-out return address: added, listed, a bad one refused next to the field with what was typed kept.
    await page.getByLabel('New sign-out return address').fill('https://invoices.demo.test/signed-out');
    await expectOneEvent(page, 'app.post_logout_redirect_uri_added', () => submit(page, 'add-post-logout-uri', 'Add return address'));
    await expect(page.getByTestId('post-logout-uris')).toContainText('https://invoices.demo.test/signed-out');
    await page.getByLabel('New sign-out return address').fill('ftp://invoices.demo.test/out');
    await submit(page, 'add-post-logout-uri', 'Add return address');
    await expect(page.getByTestId('add-post-logout-uri').getByTestId('action-error')).toContainText('must use https');
    await expect(page.getByLabel('New sign-out return address')).toHaveValue('ftp://invoices.demo.test/out');

    await page.getByTestId('update-app').getByLabel('Name').fill('Invoices & Billing');
    await expectOneEvent(page, 'app.updated', () => submit(page, 'update-app', 'Save'));
    await expect(page.getByTestId('update-app').getByRole('status')).toHaveText('Saved.');

    await page.getByLabel('New redirect URI').fill('https://invoices.demo.test/second');
    await expectOneEvent(page, 'app.redirect_uri_added', () => submit(page, 'add-redirect-uri', 'Add redirect URI'));
    // The form resets itself once the action's answer arrives: wait for that, or it would clear what comes next.
    await expect(page.getByTestId('add-redirect-uri').getByRole('status')).toHaveText('Redirect URI added.');
    await expect(page.getByLabel('New redirect URI')).toHaveValue('');
    await page.getByLabel('New redirect URI').fill('javascript:alert(1)');
    await submit(page, 'add-redirect-uri', 'Add redirect URI');
    await expect(page.getByTestId('add-redirect-uri').getByTestId('action-error')).toHaveText('"javascript:alert(1)" must use https (plain http only on a loopback host)');
    await page.reload();
    const row = page.getByTestId('redirect-uris').locator('li', { hasText: 'https://invoices.demo.test/second' });
    await row.getByRole('button', { name: 'Remove' }).click();
    await expect(row.getByRole('alert')).toContainText('will be refused from now on');
    await page.screenshot({ path: testInfo.outputPath('app-remove-confirm.png'), fullPage: true });
    await expectOneEvent(page, 'app.redirect_uri_removed', () => row.getByRole('button', { name: 'Yes, remove it' }).click());
    await page.reload();
    await expect(page.getByTestId('redirect-uris')).not.toContainText('https://invoices.demo.test/second');
    await page.screenshot({ path: testInfo.outputPath('app.png'), fullPage: true });
  });

  test('members and teams', async ({ page }, testInfo) => {
    await consoleSignIn(page, DEMO);
    await page.getByRole('link', { name: 'Members' }).click();
    const since = Date.now();
    await page.getByTestId('invite-member').getByLabel('Email').fill('newcomer@demo.e2e.test');
    await expectOneEvent(page, 'invitation.sent', () => submit(page, 'invite-member', 'Send invitation'));
    // No credential reaches the admin: the invitee accepts by mail, with a password of their own.
    await expect(page.getByTestId('secret-once')).toHaveCount(0);
    const invitation = await waitForMail('newcomer@demo.e2e.test', /Join Demo/, since);
    const newcomerPage = await page.context().browser()!.newPage();
    await newcomerPage.goto(linkPath(invitation));
    await newcomerPage.getByLabel('Your name').fill('Newcomer');
    await newcomerPage.getByLabel('Choose a password').fill('newcomer picked this phrase');
    await newcomerPage.getByRole('button', { name: /Create my account/ }).click();
    await newcomerPage.waitForURL(/\/console\/demo\/apps$/);
    await newcomerPage.close();
    await page.reload();
    // The list's rows hold no forms (issue 61): the member's page holds their role, reset and removal.
    await page.getByRole('link', { name: 'Manage newcomer@demo.e2e.test' }).click();
    const membership = page.getByTestId('membership');
    await membership.getByLabel('New role').selectOption('admin');
    await expectOneEvent(page, 'member.role_changed', () => membership.getByRole('button', { name: 'Change role' }).click());
    await expect(membership.getByRole('status')).toHaveText('Role changed to admin.');
    await page.goto('/console/demo/members');
    await expect(page.locator('tr[data-email="newcomer@demo.e2e.test"]').locator('td').nth(1)).toHaveText('admin');
    await page.getByRole('link', { name: 'Manage newcomer@demo.e2e.test' }).click();
    await expect(membership).toContainText('Role in this organization: admin.');
    await membership.getByRole('button', { name: 'Remove' }).click();
    await expect(membership.getByRole('alert')).toContainText('access tokens already issued end within 10 minutes');
    await page.screenshot({ path: testInfo.outputPath('member-remove-confirm.png'), fullPage: true });
    await expectOneEvent(page, 'member.removed', () => membership.getByRole('button', { name: 'Yes, remove' }).click());
    await page.waitForURL(/\/console\/demo\/members\?removed=1$/);
    await expect(page.getByTestId('member-removed')).toContainText('Removed the member.');
    await expect(page.locator('tr[data-email="newcomer@demo.e2e.test"]')).toHaveCount(0);
    await page.screenshot({ path: testInfo.outputPath('members.png'), fullPage: true });

    await page.getByRole('link', { name: 'Teams' }).click();
    await page.getByLabel('Team name').fill('Finance');
    await expectOneEvent(page, 'team.created', () => submit(page, 'create-team', 'Create team'));
    await page.reload();
    const finance = page.getByTestId('team-Finance');
    await finance.getByLabel('Member').selectOption({ label: ROCKETS.outsider.email });
    await expectOneEvent(page, 'team.member_added', () => finance.getByRole('button', { name: 'Add to team' }).click());
    await finance.getByLabel('Permission').selectOption({ label: 'reports:read — Read reports' });
    await expectOneEvent(page, 'team.scope_granted', () => finance.getByRole('button', { name: 'Grant' }).click());
    await page.reload();
    await expect(finance).toContainText(ROCKETS.outsider.email);
    await expect(finance).toContainText('reports:read');
    await page.screenshot({ path: testInfo.outputPath('teams.png'), fullPage: true });
  });

  test('settings: whitelabel branding with a live preview', async ({ page }, testInfo) => {
    await consoleSignIn(page, DEMO);
    await page.getByRole('link', { name: 'Settings' }).click();
    await expect(page.getByTestId('preview-name')).toHaveText('Portico');
    await page.getByLabel('Display name').fill('Demo Co');
    await page.getByLabel('Primary colour').fill('#0b7a43');
    await expect(page.getByTestId('preview-name')).toHaveText('Demo Co');
    await expect(page.getByTestId('preview-button')).toHaveCSS('background-color', 'rgb(11, 122, 67)');
    await page.screenshot({ path: testInfo.outputPath('settings.png'), fullPage: true });
    await expectOneEvent(page, 'org.branding_updated', () => submit(page, 'branding', 'Save branding'));
    // Wait for the form's answer (it may reset its fields), then back to Portico's brand, as the other suites expect.
    await expect(page.getByTestId('branding').getByRole('status')).toBeVisible();
    await page.getByLabel('Display name').fill('');
    await page.getByLabel('Primary colour').fill('');
    await expectOneEvent(page, 'org.branding_updated', () => submit(page, 'branding', 'Save branding'));
  });

  test('audit log: filters, pagination controls, CSV and JSON export', async ({ page }, testInfo) => {
    await consoleSignIn(page, DEMO);
    await page.getByRole('link', { name: 'Audit log' }).click();
    await expect(page.getByTestId('audit-events')).toContainText('app.created');
    // The types come from a list of those in the log: a whole family, or one type.
    await page.getByLabel('Type').selectOption('team.');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect(page.getByTestId('audit-events')).toContainText('team.created');
    await expect(page.getByTestId('audit-events')).not.toContainText('app.created');
    await page.screenshot({ path: testInfo.outputPath('audit.png'), fullPage: true });
    // Each event opens whole: its details and its place in the chain.
    // Named as a person reads it, with the code beside the name on the page (issue 56, item 8).
    await expect(page.getByTestId('audit-events').getByRole('row').filter({ hasText: 'team.created' }).first()).toContainText('Team created');
    await page.getByTestId('audit-events').getByRole('link', { name: /: Team created, / }).first().click();
    await expect(page.getByRole('heading', { name: /^Audit event #\d+$/ })).toBeVisible();
    await expect(page.getByTestId('audit-event')).toContainText('Team created team.created');
    await expect(page.getByTestId('audit-event')).toContainText(/[0-9a-f]{64}/);
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('audit-event.png'), fullPage: true });
    expect((await page.request.get('/console/demo/audit/999999999')).status()).toBe(404);
    // An actor is found by the whole of its email, in any case; a part of it finds nothing, and the page says why.
    await page.goto('/console/demo/audit');
    await page.getByLabel('Actor').fill(DEMO.email.toUpperCase());
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect(page.getByTestId('audit-events')).toContainText('team.created');
    await page.getByLabel('Actor').fill(DEMO.email.split('@')[0]!);
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect(page.getByText('No events match')).toBeVisible();
    await expect(page.getByText('An actor or a subject is found by its whole email or name (in any case) or its exact id, not by a part of them.')).toBeVisible();
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('audit-no-match.png'), fullPage: true });
    const csv = await page.request.get('/console/demo/audit/export?format=csv&action=member.');
    expect(csv.headers()['content-type']).toContain('text/csv');
    const lines = (await csv.text()).split('\r\n');
    expect(lines[0]).toContain('"occurredAt"'.replaceAll('"', ''));
    expect(lines.slice(1).every((line) => line.includes('"member.'))).toBe(true);
    expect(lines.length).toBe(3); // header + role changed, removed (joining is invitation.sent, then invitation.accepted)
  });

  test('own sessions and sign out everywhere', async ({ page, browser }, testInfo) => {
    const other = await browser.newContext();
    const otherPage = await other.newPage();
    await consoleSignIn(otherPage, DEMO);
    await consoleSignIn(page, DEMO);
    await page.goto('/console/account');
    await expect(page.getByTestId('account-sessions')).toContainText('This browser');
    await page.screenshot({ path: testInfo.outputPath('account.png'), fullPage: true });
    await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await expect(page.getByRole('status')).toHaveText('Every other session has ended.');
    await otherPage.goto('/console/demo/apps');
    await expect(otherPage).toHaveURL(/\/console\/login\?next=%2Fconsole%2Fdemo%2Fapps$/);
    await other.close();
  });
});

test.describe('deleting an organization', () => {
  test('is for owners only, and asks for the slug', async ({ page, browser }, testInfo) => {
    const adminContext = await browser.newContext();
    const admin = await adminContext.newPage();
    await consoleSignIn(admin, ROCKETS.outsider);
    await admin.goto('/console/doomed-co/settings');
    await expect(admin.getByRole('heading', { name: 'Organization settings' })).toBeVisible();
    await expect(admin.getByTestId('delete-org')).toHaveCount(0);
    await adminContext.close();

    await consoleSignIn(page, DEMO);
    await page.goto('/console/doomed-co/settings');
    const form = page.getByTestId('delete-org');
    await form.getByLabel('Type doomed-co to confirm').fill('doomed');
    await form.getByRole('button', { name: 'Delete organization' }).click();
    await expect(form.getByRole('alert')).toContainText('Every app of it stops working at once');
    await page.screenshot({ path: testInfo.outputPath('delete-confirm.png'), fullPage: true });
    await form.getByRole('button', { name: 'Yes, delete it' }).click();
    await expect(form.getByTestId('action-error')).toHaveText("Type the organization's slug, doomed-co, to confirm.");
    await form.getByLabel('Type doomed-co to confirm').fill('doomed-co');
    await form.getByRole('button', { name: 'Delete organization' }).click();
    await form.getByRole('button', { name: 'Yes, delete it' }).click();
    await page.waitForURL(/\/console\/demo\/apps$/);
    expect((await page.goto('/console/doomed-co/apps'))?.status()).toBe(404);
  });
});

test.describe('the console, as a member', () => {
  /** The server-action request that `run` makes in the admin's page (one signed-in page for every capture). */
  async function captureAction(admin: Page, run: (page: Page) => Promise<void>): Promise<Request> {
    let onRequest: (request: Request) => void = () => {};
    const captured = new Promise<Request>((resolve) => {
      onRequest = (request) => {
        if (request.headers()['next-action']) resolve(request);
      };
      admin.on('request', onRequest);
    });
    await run(admin);
    const request = await captured;
    admin.off('request', onRequest);
    return request;
  }

  test('sees read-only pages and is refused every admin action, also posted directly', async ({ page, browser }, testInfo) => {
    await consoleSignIn(page, ROCKETS.outsider);
    await expect(page.getByRole('link', { name: 'Demo App' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'New app' })).toHaveCount(0);
    for (const hidden of ['Teams', 'Settings', 'Audit log']) await expect(page.getByRole('link', { name: hidden })).toHaveCount(0);
    await page.screenshot({ path: testInfo.outputPath('member-apps.png'), fullPage: true });
    await page.goto('/console/demo/settings');
    await expect(page.getByText('Only the organization’s owners and admins change its settings.')).toBeVisible();
    await page.goto('/console/demo/members');
    await expect(page.getByTestId('invite-member')).toHaveCount(0);
    expect((await page.request.get('/console/demo/audit/export?format=json')).status()).toBe(404);
    // An organization the member does not belong to does not exist for them.
    expect((await page.goto('/console/acme-rockets/apps'))?.status()).toBe(404);

    // The admin's real server-action requests, replayed with the member's session: refused, nothing written.
    const adminPage = await (await browser.newContext()).newPage();
    await consoleSignIn(adminPage, DEMO);
    const createApp = await captureAction(adminPage, async (admin) => {
      await admin.goto('/console/demo/apps/new');
      await admin.getByLabel('Name').fill('Sneaky');
      await admin.getByLabel('Publish address').fill('https://sneaky.demo.test');
      await admin.getByLabel('Redirect URI').fill('https://sneaky.demo.test/cb');
      await admin.getByRole('button', { name: 'Create app' }).click();
      await admin.getByTestId('secret-once').waitFor();
    });
    const addMember = await captureAction(adminPage, async (admin) => {
      await admin.goto('/console/demo/members');
      await admin.getByTestId('invite-member').getByLabel('Email').fill('replayed@demo.e2e.test');
      await admin.getByTestId('invite-member').getByRole('button', { name: 'Send invitation' }).click();
      await admin.getByTestId('invite-member').getByTestId('action-ok').waitFor();
    });
    const saveBranding = await captureAction(adminPage, async (admin) => {
      await admin.goto('/console/demo/settings');
      await admin.getByLabel('Display name').fill('');
      await admin.getByRole('button', { name: 'Save branding' }).click();
      await admin.getByTestId('branding').getByRole('status').waitFor();
    });
    const createTeam = await captureAction(adminPage, async (admin) => {
      await admin.goto('/console/demo/teams');
      await admin.getByLabel('Team name').fill('Replayed team');
      await admin.getByRole('button', { name: 'Create team' }).click();
      await admin.getByTestId('create-team').getByRole('status').waitFor();
    });
    const changeRole = await captureAction(adminPage, async (admin) => {
      await admin.goto('/console/demo/members');
      await admin.getByRole('link', { name: `Manage ${ROCKETS.member.email}` }).click();
      const membership = admin.getByTestId('membership');
      await membership.getByLabel('New role').selectOption('member');
      await membership.getByRole('button', { name: 'Change role' }).click();
      await membership.getByRole('status').waitFor();
    });
    for (const captured of [createApp, addMember, saveBranding, createTeam, changeRole]) {
      const response = await page.request.post(captured.url(), {
        headers: { 'next-action': captured.headers()['next-action']!, 'content-type': captured.headers()['content-type']!, origin: E2E_ISSUER, accept: 'text/x-component' },
        data: captured.postDataBuffer()!,
      });
      expect(response.status()).toBe(200);
      expect(await response.text()).toContain('You do not have permission to do this in this organization.');
    }
    await page.goto('/console/demo/apps');
    await expect(page.getByRole('link', { name: 'Sneaky' })).toHaveCount(1); // the admin's own, not a second one
    // The admin's own invitation, sent once: the replay wrote no second event.
    const invitationEvents = (await auditEvents(adminPage)).filter((event) => event.subjectLabel === 'replayed@demo.e2e.test');
    expect(invitationEvents.map((event) => event.action)).toEqual(['invitation.sent']);
  });

  test('a person in two organizations switches between them', async ({ page }, testInfo) => {
    await consoleSignIn(page, ROCKETS.member);
    await page.getByTestId('org-switcher').locator('summary').click();
    await page.screenshot({ path: testInfo.outputPath('switcher.png'), fullPage: true });
    // Both organizations, and a way to create another.
    const other = page.getByTestId('org-switcher').getByRole('link').filter({ hasNotText: 'New organization' });
    await expect(other).toHaveCount(2);
    await expect(page.getByTestId('org-switcher').getByRole('link', { name: '+ New organization' })).toHaveAttribute('href', '/console/orgs/new');
    const current = new URL(page.url()).pathname.split('/')[2];
    await other.filter({ hasNotText: current === 'demo' ? 'Demo Organization' : ROCKETS.orgName }).click();
    await expect(page).not.toHaveURL(new RegExp(`/console/${current}/`));
  });
});
