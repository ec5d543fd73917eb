// The device authorization grant (RFC 8628) for headless clients (a command-line MCP client, a tool on a server): the
// client asks /oidc/device/auth for a device code and a user code, tells the person to open /oidc/device and type
// the code, and polls the token endpoint. The person enters the code here, sees which client and which app it is for
// and the device that asked, confirms, and goes through the same sign-in, second step and consent ("who acts") as the
// code flow; the token is bound to the app the consent bound, with the person's permissions and `act`.
//
// oidc-provider does the protocol (features.deviceFlow). Portico supplies the three pages in its look and words,
// user codes easy to type (RFC 8628 §6.1: base-20, no vowels and no look-alike characters, 8 of them: 20^8 ≈ 2.6e10),
// and a limit on guessing them (§5.1): code entries are counted per client network and over the whole installation.
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type Provider from 'oidc-provider';
import type { Database } from '../db/client';
import { findAppByResource } from '../clients/apps';
import { translator } from '../i18n/catalogs';
import { hitRateLimit, type RateLimitRule } from '../rate-limit/fixed-window';
import { visibleText } from '../util/visible-text';
import { languageBack, pageLocale, providerPage } from './provider-pages';
import { escapeHtml } from '../util/html';
import { currentProviderContext } from './request-scope';

/** RFC 8628 §3.2 `expires_in`: ten minutes to find the page and type the code. */
export const DEVICE_CODE_TTL_SECONDS = 600;

/** Code entries from one client network (a /64 for IPv6), and from everyone: guessing stays hopeless. */
export const DEVICE_CODE_ENTRIES_PER_NETWORK: RateLimitRule = { name: 'device:entry:network', limit: 20, windowSeconds: 15 * 60, perClientNetwork: true };
export const DEVICE_CODE_ENTRIES_OVERALL: RateLimitRule = { name: 'device:entry:all', limit: 600, windowSeconds: 60 };

/** The action and the anti-forgery token of oidc-provider's form: Portico writes its own, labelled, form around them. */
function formParts(form: string): { action: string; xsrf: string; userCode?: string } {
  const action = /action="([^"]*)"/.exec(form)?.[1] ?? '';
  const xsrf = /name="xsrf" value="([^"]*)"/.exec(form)?.[1] ?? '';
  const userCode = /name="user_code" value="([^"]*)"/.exec(form)?.[1];
  return { action, xsrf, ...(userCode !== undefined ? { userCode } : {}) };
}

function codeEntryPage(ctx: KoaContextWithOIDC, form: string, message?: { kind: 'error' | 'info'; text: string }): string {
  const locale = pageLocale(ctx);
  const t = translator(locale, 'providerPages.device');
  const { action, xsrf } = formParts(form);
  const described = message?.kind === 'error' ? ' aria-invalid="true" aria-describedby="code-error"' : '';
  return providerPage(
    t('title'),
    `<h1>${escapeHtml(t('title'))}</h1>
<p>${escapeHtml(t('intro'))}</p>
<form method="post" action="${escapeHtml(action)}" data-testid="device-code-form">
<input type="hidden" name="xsrf" value="${escapeHtml(xsrf)}">
<label for="user_code">${escapeHtml(t('codeLabel'))}</label>
<input id="user_code" name="user_code" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="20" placeholder="BCDF-GHJK" autofocus${described}>
${message?.kind === 'error' ? `<p class="error" id="code-error" role="alert" data-testid="device-code-error">${escapeHtml(message.text)}</p>` : ''}
<button class="primary" type="submit">${escapeHtml(t('continue'))}</button>
</form>`,
    locale,
    languageBack(ctx),
  );
}

export function deviceFlowConfiguration(db: () => Database) {
  return {
    enabled: true,
    charset: 'base-20' as const,
    mask: '****-****',

    async userCodeInputSource(ctx: KoaContextWithOIDC, form: string, _out?: unknown, err?: { name?: string; userCode?: string; retryAfterSeconds?: number }) {
      const t = translator(pageLocale(ctx), 'providerPages.device');
      const message = !err
        ? undefined
        : err instanceof TooManyCodeEntries
          ? { kind: 'error' as const, text: t('tooMany', { minutes: String(Math.max(1, Math.ceil(err.retryAfterSeconds / 60))) }) }
          : err.userCode !== undefined || err.name === 'NoCodeError'
          ? { kind: 'error' as const, text: t('wrongCode') }
          : err.name === 'AbortedError'
            ? { kind: 'error' as const, text: t('aborted') }
            : { kind: 'error' as const, text: t('failed') };
      ctx.type = 'html';
      ctx.body = codeEntryPage(ctx, form, message);
    },

    /** The code matched: which client, for which app, from which device — then the person confirms or cancels. */
    async userCodeConfirmSource(ctx: KoaContextWithOIDC, form: string, client: { clientName?: string; clientId: string }, deviceInfo: { ip?: string; ua?: string } | undefined, userCode: string) {
      const locale = pageLocale(ctx);
      const t = translator(locale, 'providerPages.device');
      const resource = (ctx.oidc.entities as { DeviceCode?: { params?: { resource?: unknown } } }).DeviceCode?.params?.resource;
      const app = typeof resource === 'string' ? await findAppByResource(db(), resource) : undefined;
      // Names a client or an admin chose: bidirectional overrides and invisible characters shown as what they are.
      const clientName = visibleText(client.clientName ?? client.clientId);
      ctx.type = 'html';
      ctx.body = providerPage(
        t('confirmTitle', { client: clientName }),
        `${app ? `<p class="app" data-testid="device-app">${escapeHtml(t('forApp', { app: visibleText(app.name) }))}</p>` : ''}
<h1>${escapeHtml(t('confirmTitle', { client: clientName }))}</h1>
<p>${escapeHtml(t('confirmBody'))}</p>
<p class="code" data-testid="device-user-code">${escapeHtml(userCode)}</p>
${deviceInfo?.ua || deviceInfo?.ip ? `<p class="muted">${escapeHtml(t('requestedFrom', { device: [deviceInfo.ua, deviceInfo.ip].filter(Boolean).join(' · ') }))}</p>` : ''}
<p>${escapeHtml(t('confirmWarning'))}</p>
${form}
<button class="primary" autofocus type="submit" form="op.deviceConfirmForm" data-testid="device-confirm">${escapeHtml(t('confirmYes'))}</button>
<button type="submit" form="op.deviceConfirmForm" value="yes" name="abort">${escapeHtml(t('confirmNo'))}</button>`,
        locale,
        languageBack(ctx),
      );
    },

    async successSource(ctx: KoaContextWithOIDC) {
      const locale = pageLocale(ctx);
      const t = translator(locale, 'providerPages.device');
      const client = ctx.oidc.client;
      ctx.type = 'html';
      ctx.body = providerPage(t('doneTitle'), `<h1 data-testid="device-done">${escapeHtml(t('doneTitle'))}</h1><p>${escapeHtml(t('doneBody', { client: visibleText(client?.clientName ?? client?.clientId ?? '') }))}</p>`, locale, languageBack(ctx));
    },
  };
}

/** Over a limit on code entries: the page says so, with 429 and Retry-After. */
class TooManyCodeEntries extends errors.OIDCProviderError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'slow_down');
    Object.assign(this, { error_description: 'too many codes were tried from this network; wait and try again' });
  }
}

/**
 * Counts every code entered on the verification page where oidc-provider looks it up (DeviceCode.findByUserCode,
 * called once per code entered, whatever the spelling of the page's path): past a limit, no code is looked up and
 * the page says so, with 429 (RFC 8628 §5.1).
 */
export function limitUserCodeEntries(provider: Provider, db: () => Database): void {
  const model = provider.DeviceCode as unknown as { findByUserCode(userCode: string, options?: object): Promise<unknown> };
  const upstream = model.findByUserCode.bind(model);
  model.findByUserCode = async function findByUserCodeWithinLimits(userCode: string, options?: object) {
    const ctx = currentProviderContext();
    if (ctx?.oidc?.route === 'code_verification') {
      const network = await hitRateLimit(db(), DEVICE_CODE_ENTRIES_PER_NETWORK, ctx.ip);
      const overall = network.limited ? network : await hitRateLimit(db(), DEVICE_CODE_ENTRIES_OVERALL, 'all');
      if (network.limited || overall.limited) {
        const seconds = Math.max(network.retryAfterSeconds, overall.retryAfterSeconds);
        ctx.set('Retry-After', String(seconds));
        throw new TooManyCodeEntries(seconds);
      }
    }
    return upstream(userCode, options);
  };
}

/** RFC 8628 §3.2 `interval`: oidc-provider leaves it out of the device authorization response (the default is 5). */
export function announcePollInterval(provider: Provider, intervalSeconds: number): void {
  provider.on('device_authorization.success', (_ctx: unknown, body: Record<string, unknown>) => {
    body.interval = intervalSeconds;
  });
}

