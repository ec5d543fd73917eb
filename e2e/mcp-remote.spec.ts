// mcp-remote (npm `mcp-remote`, 0.15.1 pinned in devDependencies), the stdio ↔ Streamable HTTP bridge desktop MCP
// hosts start, with its default OAuth handling (MCP issue 55): it registers itself with the loopback callback it
// listens on, opens the authorization URL in "the browser" — here a stand-in that only writes the URL down — and
// the person signs in and consents in Playwright's Chromium, which lands on mcp-remote's own callback. Then the host's
// JSON-RPC over its stdio reaches Portico's own /api/mcp with the token it obtained. (Its `--device-code` mode:
// test/oidc/mcp-remote-device.test.ts.)
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from './support/test';
import { decodeJwt } from 'jose';
import { E2E_ISSUER, lanePort } from './support/constants';
import { FLIGHT_DECK } from './support/fixtures';
import { fillSignIn } from './support/relying-party';
import { rememberSecret } from './support/secret-scan';
import { McpRemote } from '../test/support/mcp-remote';

const PORTICO_API = `${E2E_ISSUER}/api/mcp`;
/** mcp-remote's callback port, given on its command line as a host's configuration does. */
const CALLBACK_PORT = lanePort(4987);
const ENGINEER = FLIGHT_DECK.engineer; // a member (admin) of Acme Rockets, who may use Portico's own API


/** What mcp-remote stored (its config dir): the tokens of the one server it signed in to. */
function storedTokens(configDir: string): { access_token: string; refresh_token?: string } | undefined {
  const files = readdirSync(configDir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('_tokens.json'));
  return files.length === 1 ? JSON.parse(readFileSync(path.join(configDir, files[0]!), 'utf8')) : undefined;
}

test('mcp-remote signs in through the browser with its own loopback callback, then proxies tools/list and whoami', async ({ page }, testInfo) => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'portico-mcp-remote-'));
  const configDir = path.join(scratch, 'config');
  const bin = path.join(scratch, 'bin');
  const opened = path.join(scratch, 'opened-urls.txt');
  // The "browser": `open` 10 runs its bundled xdg-open, which (no desktop, no display) runs $BROWSER with the URL;
  // an `xdg-open` first on PATH catches mcp-remote's own fallbacks and any system xdg-open. Both only write the URL.
  const fakeBrowser = path.join(bin, 'xdg-open');
  mkdirSync(bin);
  writeFileSync(fakeBrowser, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`);
  chmodSync(fakeBrowser, 0o755);
  const env: NodeJS.ProcessEnv = { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: fakeBrowser, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };
  for (const key of ['DISPLAY', 'WAYLAND_DISPLAY', 'XDG_CURRENT_DESKTOP', 'DESKTOP_SESSION', 'KDE_FULL_SESSION', 'GNOME_DESKTOP_SESSION_ID', 'MATE_DESKTOP_SESSION_ID', 'DBUS_SESSION_BUS_ADDRESS']) delete env[key];

  // As a host starts it (`npx mcp-remote <url> <port>`): its bin, on the Node running the tests.
  const remote = new McpRemote(
    spawn(process.execPath, [path.resolve('node_modules/mcp-remote/dist/proxy.js'), PORTICO_API, String(CALLBACK_PORT)], { env, stdio: ['pipe', 'pipe', 'pipe'] }),
  );
  try {
    const authorizationUrl = await remote.until('browser opened', () => (existsSync(opened) ? readFileSync(opened, 'utf8').split('\n').find(Boolean) : undefined));
    const url = new URL(authorizationUrl);
    const redirectUri = `http://localhost:${CALLBACK_PORT}/oauth/callback`;
    expect(`${url.origin}${url.pathname}`).toBe(`${E2E_ISSUER}/oidc/auth`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: expect.stringMatching(/^dcr_/),
      redirect_uri: redirectUri,
      code_challenge_method: 'S256',
      resource: PORTICO_API,
      // What Portico's 401 named, and offline_access with prompt=consent, as mcp-remote asks for a refresh token.
      scope: 'mcp offline_access',
      prompt: 'consent',
    });

    // The person, in the browser the URL was opened in: signs in, consents, and lands on mcp-remote's listener.
    await page.goto(authorizationUrl);
    await fillSignIn(page, ENGINEER.email, ENGINEER.password);
    await page.getByTestId('who-acts').waitFor();
    await page.waitForLoadState('networkidle'); // let React hydrate before answering
    await expect(page.getByTestId('consent-client-name')).toHaveText('MCP CLI Proxy');
    await expect(page.getByTestId('consent-redirect-host')).toHaveText(`localhost:${CALLBACK_PORT}`);
    await expect(page.getByTestId('localhost-warning')).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath('consent-mcp-remote.png'), fullPage: true });
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((current) => current.href.startsWith(redirectUri));
    await expect(page.locator('body')).toContainText('Authorization successful'); // mcp-remote's own page

    await remote.until('proxy', () => (remote.log.includes('Proxy established successfully') ? true : undefined));
    const tokens = storedTokens(configDir);
    rememberSecret('an access token', tokens?.access_token);
    rememberSecret('a refresh token', tokens?.refresh_token);
    expect(tokens?.refresh_token).toBeTruthy();
    expect(decodeJwt(tokens!.access_token)).toMatchObject({ aud: PORTICO_API, scope: 'mcp' });

    // The host's side: JSON-RPC over mcp-remote's stdio, as a 2025-11-25 host sends it.
    remote.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'portico-e2e-host', version: '1.0.0' } } });
    const initialized = (await remote.answer(1)).result;
    expect(initialized, remote.log).toMatchObject({ protocolVersion: '2025-11-25' });
    testInfo.annotations.push({ type: 'negotiated protocol version', description: String(initialized?.protocolVersion) });
    remote.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    remote.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const tools = (await remote.answer(2)).result?.tools as { name: string }[];
    expect(tools.map((tool) => tool.name)).toContain('whoami');
    remote.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
    const called = (await remote.answer(3)).result as { content: { type: string; text: string }[] };
    expect(JSON.parse(called.content[0]!.text)).toMatchObject({ email: ENGINEER.email, act: null });
  } finally {
    remote.child.kill();
    rmSync(scratch, { recursive: true, force: true });
  }
});
