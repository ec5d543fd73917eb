import { expectAccessible } from './support/accessibility';
import { expect, test } from './support/test';
import * as oidc from 'openid-client';
import { DEMO, E2E_ISSUER, lanePort } from './support/constants';
import { demoRelyingParty, fillSignIn, interceptCallback, newAuthorizationRequest, signInAndExchange, signInForCallback } from './support/relying-party';

test.describe('signing in to the demo app', () => {
  test('authorization code + PKCE through the sign-in card, with openid-client as the relying party', async ({ page }, testInfo) => {
    const config = await demoRelyingParty(E2E_ISSUER);
    const { callbackUrl, tokens } = await signInAndExchange(page, config, testInfo);

    // RFC 9207: the authorization response names the issuer.
    expect(callbackUrl.searchParams.get('iss')).toBe(E2E_ISSUER);
    const claims = tokens.claims();
    expect(claims?.iss).toBe(E2E_ISSUER);
    expect(claims?.aud).toBe(DEMO.clientId);
    // conformIdTokenClaims: with an access token issued, scope claims come from userinfo (OIDC Core §5.4).
    expect(claims?.sub).toMatch(/^[0-9a-f-]{36}$/);
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims!.sub);
    expect(userinfo.email).toBe(DEMO.email);
  });

  test('refresh tokens rotate on every use', async ({ page }) => {
    const config = await demoRelyingParty(E2E_ISSUER);
    // OIDC Core §11: offline_access is honoured with prompt=consent; for an app's own client signing in is the consent.
    const { tokens } = await signInAndExchange(page, config, undefined, 'openid offline_access', { prompt: 'consent' });
    expect(tokens.refresh_token).toBeTruthy();
    const rotated = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(rotated.refresh_token).toBeTruthy();
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect(rotated.access_token).not.toBe(tokens.access_token);
    const again = await oidc.refreshTokenGrant(config, rotated.refresh_token!);
    expect(again.refresh_token).not.toBe(rotated.refresh_token);
    // Reuse detection and its grace interval are pinned in test/oidc/identity-core.test.ts (clock-dependent).
  });

  test('an app that asks for prompt=consent from a signed-in person gets a Continue step, not a consent screen', async ({ page }, testInfo) => {
    const config = await demoRelyingParty(E2E_ISSUER);
    await signInAndExchange(page, config); // leaves a session in this browser
    const request = await newAuthorizationRequest(config, 'openid', { prompt: 'consent' });
    const callback = await interceptCallback(page);
    await page.goto(request.url.href);
    await expect(page.getByRole('heading', { name: 'Continue to Demo App' })).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath('continue.png'), fullPage: true });
    await page.getByRole('button', { name: 'Continue' }).click();
    const tokens = await oidc.authorizationCodeGrant(config, await callback(), {
      pkceCodeVerifier: request.codeVerifier,
      expectedState: request.state,
      expectedNonce: request.nonce,
    });
    expect(tokens.claims()?.sub).toBeTruthy();
  });

  test('the card names the app, and a wrong password is refused with a clear message', async ({ page }, testInfo) => {
    const config = await demoRelyingParty(E2E_ISSUER);
    const request = await newAuthorizationRequest(config);
    await page.goto(request.url.href);
    await expect(page.getByRole('heading', { name: 'Sign in to Demo App' })).toBeVisible();
    await expect(page.getByTestId('app-header')).toContainText(`http://127.0.0.1:${lanePort(4999)}`);
    await fillSignIn(page, DEMO.email, 'not-the-password');
    await expect(page.getByTestId('sign-in-error')).toHaveText('The email or password is incorrect.');
    // What was typed stays (the email; never the password), the password field is marked and has the focus.
    await expect(page.getByLabel('Email')).toHaveValue(DEMO.email);
    await expect(page.getByLabel('Password')).toHaveValue('');
    await expect(page.getByLabel('Password')).toBeFocused();
    await expect(page.getByLabel('Password')).toHaveAttribute('aria-invalid', 'true');
    await page.screenshot({ path: testInfo.outputPath('wrong-password.png'), fullPage: true });
    await fillSignIn(page, 'nobody@e2e.portico.test', DEMO.password);
    await expect(page.getByTestId('sign-in-error')).toHaveText('The email or password is incorrect.');
    await expect(page.getByLabel('Email')).toHaveValue('nobody@e2e.portico.test');
    // Kept for that card only: the console's sign-in starts empty.
    await page.goto('/console/login');
    await expect(page.getByLabel('Email')).toHaveValue('');
    // The console's and the central's forms keep it too (an unknown account: the refusal reads the same).
    await page.getByLabel('Email').fill('typed@e2e.portico.test');
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByTestId('sign-in-error')).toBeVisible();
    await expect(page.getByLabel('Email')).toHaveValue('typed@e2e.portico.test');
    await page.goto('/central');
    await page.getByLabel('Email').fill('typed@e2e.portico.test');
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByTestId('sign-in-error')).toBeVisible();
    await expect(page.getByLabel('Email')).toHaveValue('typed@e2e.portico.test');
    await expectAccessible(page);
    // A sign-in that succeeds forgets the kept email: the next person at this browser does not see it.
    expect((await page.context().cookies(`${E2E_ISSUER}/central`)).some((cookie) => cookie.name === 'portico_typed_email')).toBe(true);
    await page.getByLabel('Email').fill(DEMO.email);
    await page.getByLabel('Password').fill(DEMO.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByRole('heading', { name: 'Pending requests' })).toBeVisible();
    expect((await page.context().cookies(`${E2E_ISSUER}/central`)).some((cookie) => cookie.name === 'portico_typed_email')).toBe(false);
  });

  test('an authorization code is single use: a replay is refused', async ({ page }) => {
    const config = await demoRelyingParty(E2E_ISSUER);
    const { callbackUrl, checks } = await signInForCallback(page, config);
    await oidc.authorizationCodeGrant(config, callbackUrl, checks);
    await expect(oidc.authorizationCodeGrant(config, callbackUrl, checks)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  test('the token endpoint refuses a wrong client secret and a wrong PKCE verifier', async ({ page }) => {
    const config = await demoRelyingParty(E2E_ISSUER);
    const { request, callbackUrl } = await signInForCallback(page, config);

    // RFC 6749 §5.2 on the wire: 401, a Basic challenge and the JSON error body.
    const wrongSecret = await fetch(`${E2E_ISSUER}/oidc/token`, {
      method: 'POST',
      headers: { Authorization: `Basic ${Buffer.from(`${DEMO.clientId}:${DEMO.clientSecret}-wrong`).toString('base64')}` },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callbackUrl.searchParams.get('code') ?? '',
        redirect_uri: DEMO.redirectUri,
        code_verifier: request.codeVerifier,
      }),
    });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.headers.get('www-authenticate')).toMatch(/^Basic .*error="invalid_client"/);
    expect(await wrongSecret.json()).toEqual({ error: 'invalid_client', error_description: 'client authentication failed' });
    await expect(
      oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: oidc.randomPKCECodeVerifier(), expectedState: request.state }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  test('PKCE is required: a request without code_challenge never reaches the sign-in card', async ({ page }) => {
    const url = new URL('/oidc/auth', E2E_ISSUER);
    url.search = new URLSearchParams({ client_id: DEMO.clientId, response_type: 'code', scope: 'openid', redirect_uri: DEMO.redirectUri, state: 's1' }).toString();
    const callback = await interceptCallback(page);
    await page.goto(url.href);
    const callbackUrl = await callback();
    expect(callbackUrl.searchParams.get('error')).toBe('invalid_request');
    expect(callbackUrl.searchParams.get('error_description')).toMatch(/PKCE/);
    expect(callbackUrl.searchParams.get('state')).toBe('s1');
  });

  test('an unregistered redirect URI gets an error page, never a redirect', async ({ page }, testInfo) => {
    const url = new URL('/oidc/auth', E2E_ISSUER);
    url.search = new URLSearchParams({
      client_id: DEMO.clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: 'https://attacker.example/callback',
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
    }).toString();
    const response = await page.goto(url.href);
    expect(response?.status()).toBe(400);
    expect(new URL(page.url()).origin).toBe(E2E_ISSUER);
    await expect(page.getByRole('heading', { name: 'Sign-in cannot continue' })).toBeVisible();
    await expect(page.locator('body')).toContainText('redirect_uri');
    await page.screenshot({ path: testInfo.outputPath('redirect-uri-error.png'), fullPage: true });
  });
});
