// Portico in the person's language: an app's whole sign-in (card, second step, consent) in Portuguese when the
// request says ui_locales=pt-BR; the browser's Accept-Language alone; an unknown language falling back to English;
// an organization's default; a person's own choice from the footer, kept on their account and followed by their mail.
import { expect, test, type Page, type TestInfo } from './support/test';
import { Secret, TOTP } from 'otpauth';
import { expectAccessible } from './support/accessibility';
import { consoleSignIn } from './support/console';
import { expectNoSidewaysScroll } from './support/layout';
import { DEMO, E2E_ISSUER, lanePort } from './support/constants';
import { FLIGHT_DECK, LINGUA, ROCKETS } from './support/fixtures';
import { waitForMail } from './support/mail';
import { pkceAuthorizationRequest } from './support/mcp-oauth';
import { appAuthorizationUrl, interceptCallback } from './support/relying-party';

test.describe.configure({ mode: 'serial' });

const READER = LINGUA.reader;
let recoveryCodes: string[] = [];

const rocketsAuthorizationUrl = (extra: Record<string, string> = {}) => appAuthorizationUrl(ROCKETS, extra);

async function expectLanguage(page: Page, lang: string) {
  await expect(page.locator('html')).toHaveAttribute('lang', lang);
}

/** Both widths, and axe: the Portuguese strings are longer, the 390 px card must still fit. */
async function lookAt(page: Page, testInfo: TestInfo, name: string) {
  await expectAccessible(page);
  await page.screenshot({ path: testInfo.outputPath(`${name}.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  await page.screenshot({ path: testInfo.outputPath(`${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 720 });
}

test('with ui_locales=pt-BR an app’s whole sign-in is in Portuguese: the card, the second step, the consent', async ({ page }, testInfo) => {
  // The reader sets up an authenticator app first (in English: their browser asks for English).
  await consoleSignIn(page, READER);
  await page.goto('/console/account');
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  const secret = ((await page.getByTestId('totp-enrollment').getByTestId('totp-secret').textContent()) ?? '').replace(/\s+/g, '');
  const confirm = page.getByTestId('confirm-totp');
  await confirm.getByLabel('Code from the app').fill(new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate());
  await confirm.getByLabel('Your password').fill(READER.password);
  await confirm.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
  await expect(page.getByTestId('recovery-codes').locator('li')).toHaveCount(10);
  recoveryCodes = await page.getByTestId('recovery-codes').locator('code').allTextContents();
  expect(recoveryCodes).toHaveLength(10);
  await page.context().clearCookies();

  // The card.
  const callback = await interceptCallback(page, ROCKETS.redirectUri);
  await page.goto((await rocketsAuthorizationUrl({ ui_locales: 'pt-BR' })).href);
  await expectLanguage(page, 'pt-BR');
  await expect(page.getByRole('heading', { name: `Entrar em ${ROCKETS.appName}` })).toBeVisible();
  await expect(page.getByText(`Use sua conta ${ROCKETS.brandName}.`)).toBeVisible();
  await expect(page.getByRole('link', { name: 'Esqueci minha senha' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Entrar com uma chave de acesso' })).toBeVisible();
  await expect(page.getByText('Protegido pelo Portico')).toBeVisible();
  await expect(page.getByTestId('language-pt-BR')).toHaveAttribute('aria-pressed', 'true');
  await lookAt(page, testInfo, 'pt-BR-sign-in-card');

  // A refusal, next to the field, in Portuguese; the email typed stays.
  await page.getByLabel('E-mail').fill(READER.email);
  await page.getByLabel('Senha').fill('não é a senha');
  await page.getByRole('button', { name: 'Entrar', exact: true }).click();
  await expect(page.getByTestId('sign-in-error')).toHaveText('E-mail ou senha incorretos.');
  await expect(page.getByLabel('E-mail')).toHaveValue(READER.email);
  await expectLanguage(page, 'pt-BR');

  // The second step.
  await page.getByLabel('Senha').fill(READER.password);
  await page.getByRole('button', { name: 'Entrar', exact: true }).click();
  await expect(page.getByText('Sua conta tem verificação em duas etapas.')).toBeVisible();
  await page.getByLabel('Código do aplicativo autenticador').fill('000000');
  await page.getByRole('button', { name: 'Continuar' }).click();
  await expect(page.getByTestId('second-factor-error')).toContainText('Código incorreto');
  await expectLanguage(page, 'pt-BR');
  await lookAt(page, testInfo, 'pt-BR-second-step');
  await page.getByRole('link', { name: 'Perdeu o autenticador? Use um código de recuperação' }).click();
  await page.getByLabel('Código de recuperação').fill(recoveryCodes[0]!);
  await page.getByRole('button', { name: 'Continuar' }).click();
  expect((await callback()).searchParams.get('code')).toBeTruthy();

  // The consent of an MCP client for the Flight Deck, in the same browser (signed in now).
  const registered = await fetch(`${E2E_ISSUER}/oauth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_name: 'Assistente de notas', redirect_uris: [`http://127.0.0.1:${lanePort(4994)}/callback`] }),
  });
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const { url } = pkceAuthorizationRequest(E2E_ISSUER, { clientId, redirectUri: `http://127.0.0.1:${lanePort(4994)}/callback`, resource: FLIGHT_DECK.resource, scope: 'mcp' });
  url.searchParams.set('ui_locales', 'pt-BR');
  const consentCallback = await interceptCallback(page, `http://127.0.0.1:${lanePort(4994)}/callback`);
  await page.goto(url.href);
  await expectLanguage(page, 'pt-BR');
  await expect(page.getByRole('heading', { name: `Permitir que Assistente de notas use ${FLIGHT_DECK.appName}?` })).toBeVisible();
  await expect(page.getByTestId('consent-facts')).toContainText('Registrou-se sozinho no Portico');
  await expect(page.getByTestId('who-acts')).toContainText('Quem age');
  await expect(page.getByTestId('localhost-warning')).toContainText('retorna apenas para este computador');
  await lookAt(page, testInfo, 'pt-BR-consent');
  await page.getByRole('button', { name: 'Negar' }).click();
  expect((await consentCallback()).searchParams.get('error')).toBe('access_denied');
});

test('Accept-Language alone picks Portuguese; an unknown language falls back to English; ui_locales comes first', async ({ browser }) => {
  const portuguese = await (await browser.newContext({ baseURL: E2E_ISSUER, locale: 'pt-BR' })).newPage();
  await portuguese.goto('/console/login');
  await expectLanguage(portuguese, 'pt-BR');
  await expect(portuguese.getByRole('heading', { name: 'Entrar no console' })).toBeVisible();
  // The request's ui_locales beats the browser.
  await portuguese.goto((await rocketsAuthorizationUrl({ ui_locales: 'en' })).href);
  await expectLanguage(portuguese, 'en');
  await expect(portuguese.getByRole('heading', { name: `Sign in to ${ROCKETS.appName}` })).toBeVisible();
  await portuguese.context().close();

  const unknown = await (await browser.newContext({ baseURL: E2E_ISSUER, extraHTTPHeaders: { 'Accept-Language': 'xx-YY, tlh;q=0.5' } })).newPage();
  await unknown.goto('/console/login');
  await expectLanguage(unknown, 'en');
  await expect(unknown.getByRole('heading', { name: 'Sign in to the console' })).toBeVisible();
  await unknown.goto((await rocketsAuthorizationUrl({ ui_locales: 'xx tlh' })).href);
  await expectLanguage(unknown, 'en');
  await expect(unknown.getByRole('heading', { name: `Sign in to ${ROCKETS.appName}` })).toBeVisible();
  await unknown.context().close();
});

test('an organization’s default language: its pages and its invitations speak it', async ({ page }) => {
  await consoleSignIn(page, LINGUA.owner);
  await page.goto(`/console/${LINGUA.orgSlug}/settings`);
  await expectLanguage(page, 'en');
  const form = page.getByTestId('default-locale');
  await form.getByLabel('Default language').selectOption('pt-BR');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form.getByTestId('action-ok')).toBeVisible();
  await page.reload();
  await expectLanguage(page, 'pt-BR');
  await expect(page.getByTestId('org-language').getByRole('heading', { name: 'Idioma' })).toBeVisible();
  await expect(page.getByTestId('default-locale').getByLabel('Idioma padrão')).toHaveValue('pt-BR');
  // Outside the organization the browser's language holds.
  await page.goto('/console/account');
  await expectLanguage(page, 'en');

  // Someone with no account yet is invited in the organization's language.
  const since = Date.now();
  await page.goto(`/console/${LINGUA.orgSlug}/members`);
  const invite = page.getByTestId('invite-member');
  await invite.getByLabel(/Email|E-mail/).fill('convidada@lingua.e2e.test');
  await invite.getByRole('button', { name: /Send invitation|Enviar convite/ }).click();
  await expect(invite.getByTestId('action-ok')).toBeVisible();
  const mail = await waitForMail('convidada@lingua.e2e.test', /Participe de/, since);
  expect(mail.subject).toBe(`Participe de ${LINGUA.orgName} no Portico`);
  expect(mail.text).toContain('O link vale uma vez e expira em 7 dias.');
  expect(mail.html).toContain('lang="pt-BR"');
});

test('a person’s choice in the footer is kept on their account: another browser and their mail follow it', async ({ page, browser }) => {
  await consoleSignIn(page, LINGUA.owner);
  await page.goto('/console/account');
  await expectLanguage(page, 'en');
  await page.getByTestId('language-footer').getByRole('button', { name: 'Português (Brasil)' }).click();
  await expectLanguage(page, 'pt-BR');
  await expect(page.getByTestId('language-pt-BR')).toHaveAttribute('aria-pressed', 'true');

  // Another browser, English by default and without this one's cookie: once signed in, the account's choice holds.
  const other = await (await browser.newContext({ baseURL: E2E_ISSUER })).newPage();
  await consoleSignIn(other, LINGUA.owner);
  await other.goto('/console/account');
  await expectLanguage(other, 'pt-BR');

  // Mail follows the account's choice, whatever page asked for it.
  const since = Date.now();
  const signedOut = await (await browser.newContext({ baseURL: E2E_ISSUER })).newPage();
  await signedOut.goto('/account/recover');
  await expectLanguage(signedOut, 'en');
  await signedOut.getByLabel('Email').fill(LINGUA.owner.email);
  await signedOut.getByRole('button', { name: 'Send me a link' }).click();
  await expect(signedOut.getByTestId('recovery-sent')).toBeVisible();
  const reset = await waitForMail(LINGUA.owner.email, /Redefina sua senha/, since);
  expect(reset.text).toContain('Alguém pediu para redefinir a senha da sua conta, talvez você.');
  expect(reset.text).toContain('O link vale uma vez e expira em 30 minutos.');

  // And back to English from the footer.
  await other.getByTestId('language-footer').getByRole('button', { name: 'English' }).click();
  await expectLanguage(other, 'en');
  await other.context().close();
  await signedOut.context().close();
});

test('an app’s description per language: its admins write it, the sign-in card shows the reader’s', async ({ page, browser }) => {
  await consoleSignIn(page, FLIGHT_DECK.engineer);
  await page.goto(`/console/acme-rockets/apps/${FLIGHT_DECK.appId}`);
  const form = page.getByTestId('save-app-descriptions');
  // Saved once the server action answered: the confirmation of an earlier save is still on screen meanwhile.
  const save = async () => {
    const answered = page.waitForResponse((response) => response.request().method() === 'POST' && response.url().includes(FLIGHT_DECK.appId));
    await form.getByRole('button', { name: 'Save descriptions' }).click();
    await answered;
    await expect(form.getByTestId('action-ok')).toBeVisible();
  };
  await form.getByLabel('In English').fill('Shared notes for the launch crew.');
  await form.getByLabel('In Brazilian Portuguese').fill('Notas compartilhadas da equipe de lançamento.');
  await save();

  const cardUrl = async (uiLocales: string) => (await appAuthorizationUrl(FLIGHT_DECK, { ui_locales: uiLocales })).href;
  const reader = await (await browser.newContext()).newPage();
  await reader.goto(await cardUrl('pt-BR'));
  await expect(reader.getByTestId('app-description')).toHaveText('Notas compartilhadas da equipe de lançamento.');
  await reader.goto(await cardUrl('en'));
  await expect(reader.getByTestId('app-description')).toHaveText('Shared notes for the launch crew.');

  // Only English left: a Portuguese reader gets the English one rather than nothing.
  await form.getByLabel('In Brazilian Portuguese').fill('');
  await save();
  await reader.goto(await cardUrl('pt-BR'));
  await expect(reader.getByTestId('app-description')).toHaveText('Shared notes for the launch crew.');

  // Leaves the app as the other specs know it.
  await form.getByLabel('In English').fill('');
  await save();
  await reader.goto(await cardUrl('en'));
  await expect(reader.getByTestId('app-description')).toHaveCount(0);
  await reader.context().close();
});

test('times read in the reader’s own zone, named, with the same moment in UTC on hover', async ({ browser }) => {
  for (const [locale, zone, named] of [
    ['pt-BR', 'America/Sao_Paulo', /(BRT|GMT-3|UTC-3)$/],
    ['en-US', 'Asia/Kolkata', /GMT\+5:30$/],
  ] as const) {
    const context = await browser.newContext({ baseURL: E2E_ISSUER, locale, timezoneId: zone });
    const page = await context.newPage();
    await consoleSignIn(page, DEMO);
    // Something in the audit log, whatever ran before in this lane: a team.
    await page.goto('/console/demo/teams');
    await page.getByTestId('create-team').locator('input[name="name"]').fill(`Zone ${zone} ${Date.now()}`);
    await page.getByTestId('create-team').locator('button[type="submit"]').click();
    await expect(page.getByTestId('create-team').getByRole('status')).toBeVisible();
    await page.goto('/console/demo/audit');
    const moment = page.getByTestId('audit-events').locator('time').first();
    await expect(moment).toHaveText(named);
    await expect(moment).toHaveAttribute('title', /UTC$/);
    await context.close();
  }
});

test('a zone saved on the account page: the console shows it whatever the browser’s; an organization’s zone for mail is a setting', async ({ browser }, testInfo) => {
  const context = await browser.newContext({ baseURL: E2E_ISSUER, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
  const page = await context.newPage();
  await consoleSignIn(page, DEMO);
  const saveZone = async (zone: string, status: RegExp) => {
    await page.goto('/console/account');
    const form = page.getByTestId('time-zone-form');
    await form.getByLabel('Fuso horário').selectOption(zone);
    await form.getByRole('button', { name: 'Salvar fuso horário' }).click();
    await expect(form.getByRole('status')).toHaveText(status);
  };
  try {
    await page.goto('/console/account');
    // The browser's own zone is the first choice, named once the page runs.
    await expect(page.getByTestId('time-zone-form').locator('option').first()).toHaveText('O do meu navegador (America/Sao Paulo)');
    await saveZone('Asia/Tokyo', /^Salvo: os horários agora aparecem em Asia\/Tokyo\.$/);
    for (const [name, width, height] of [['1280', 1280, 800], ['390', 390, 844]] as const) {
      await page.setViewportSize({ width, height });
      await page.locator('#time-zone-choice').scrollIntoViewIfNeeded();
      await page.screenshot({ path: testInfo.outputPath(`account-time-zone-${name}.png`) });
      await expectNoSidewaysScroll(page, `the account page at ${name} px`);
    }
    await expectAccessible(page);
    // Something in the audit log; its time reads in Tokyo although the browser is in São Paulo.
    await page.goto('/console/demo/teams');
    await page.getByTestId('create-team').locator('input[name="name"]').fill(`Fuso ${Date.now()}`);
    await page.getByTestId('create-team').locator('button[type="submit"]').click();
    await expect(page.getByTestId('create-team').getByRole('status')).toBeVisible();
    await page.goto('/console/demo/audit');
    await expect(page.getByTestId('audit-events').locator('time').first()).toHaveText(/GMT\+9$/);
    // Back to the browser's zone.
    await saveZone('', /^Salvo: as páginas voltam a seguir o fuso do seu navegador\.$/);
    await page.goto('/console/demo/audit');
    await expect(page.getByTestId('audit-events').locator('time').first()).toHaveText(/(BRT|GMT-3|UTC-3)$/);

    // The organization's zone for the mail of people who chose none.
    await page.goto('/console/demo/settings');
    const orgZone = page.getByTestId('default-time-zone');
    await orgZone.getByLabel('Fuso horário padrão').selectOption('America/Recife');
    await orgZone.getByRole('button', { name: 'Salvar' }).click();
    await expect(orgZone.getByRole('status')).toHaveText('Salvo: e-mails a quem não escolheu um fuso agora aparecem em America/Recife.');
    // A value no zone has (a tampered option) is refused next to the field; the choice stays.
    await orgZone.locator('select[name="timeZone"] option[value="Asia/Tokyo"]').evaluate((option) => option.setAttribute('value', 'Mars/Olympus_Mons'));
    await orgZone.locator('select[name="timeZone"]').selectOption('Mars/Olympus_Mons');
    await orgZone.getByRole('button', { name: 'Salvar' }).click();
    await expect(orgZone.getByTestId('field-error-field-timeZone')).toHaveText('Escolha um fuso horário da lista.');
    await expect(orgZone.locator('select[name="timeZone"]')).toHaveValue('Mars/Olympus_Mons');
    await page.screenshot({ path: testInfo.outputPath('org-time-zone-refused.png'), fullPage: true });
  } finally {
    // Leaves the demo organization and its owner as the other specs know them.
    await page.goto('/console/demo/settings');
    const orgZone = page.getByTestId('default-time-zone');
    await orgZone.getByLabel('Fuso horário padrão').selectOption('');
    await orgZone.getByRole('button', { name: 'Salvar' }).click();
    await expect(orgZone.getByRole('status')).toHaveText('Salvo: e-mails a quem não escolheu um fuso aparecem em UTC.');
    await context.close();
  }
});
