// The few HTML pages oidc-provider renders itself (errors, RP-initiated logout), in Portico's look.
// Every dynamic value is escaped; no value from the request is shown unless oidc-provider validated it.
import type { KoaContextWithOIDC } from 'oidc-provider';
import { localeName, supportedLocales, translator } from '../i18n/catalogs';
import { chooseLocale, LOCALE_COOKIE } from '../i18n/negotiate';
import { escapeHtml } from '../util/html';


const STYLE = `
  :root{color-scheme:light}
  body{margin:0;background:#f4f5f7;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330}
  main{box-sizing:border-box;width:min(420px,calc(100vw - 32px));background:#fff;border:1px solid #e1e4ea;border-radius:12px;padding:32px;box-shadow:0 1px 3px rgba(16,24,40,.06)}
  h1{font-size:1.25rem;margin:0 0 12px}
  p{margin:0 0 12px;color:#4a5263}
  code{font-size:.875rem;background:#f0f2f5;border-radius:4px;padding:2px 4px}
  .brand{font-weight:600;letter-spacing:.02em;color:#3346d3;margin-bottom:20px}
  button{font:inherit;font-weight:600;width:100%;padding:11px 14px;border-radius:8px;border:1px solid #c9ceda;background:#fff;color:#1d2330;cursor:pointer;margin-top:8px}
  button.primary{background:#3346d3;border-color:#3346d3;color:#fff}
  .language-footer{display:flex;justify-content:center;padding:10px 16px 16px;font-size:.85rem;color:#4a5263}
  .language-footer form{display:flex;flex-wrap:wrap;align-items:center;justify-content:center;gap:4px 10px}
  .language-footer button{width:auto;margin:0;font-weight:400;background:none;border:none;padding:2px 4px;color:#3346d3;text-decoration:underline;text-underline-offset:2px;border-radius:4px}
  .language-footer button[aria-pressed=true]{color:#1d2330;font-weight:600;text-decoration:none;cursor:default}
  .page{min-height:100vh;display:grid;grid-template-rows:1fr auto;justify-items:center;align-items:center}
  button:focus-visible{outline:3px solid #9aa6ff;outline-offset:2px}
  label{display:block;font-weight:600;margin:0 0 6px}
  input[type=text]{font:inherit;font-size:1.25rem;letter-spacing:.12em;text-transform:uppercase;width:100%;box-sizing:border-box;padding:10px 12px;border:1px solid #9aa1b0;border-radius:8px}
  input[type=text]:focus-visible{outline:3px solid #9aa6ff;outline-offset:1px}
  .error{color:#a4161a;margin:8px 0 0}
  .muted{color:#5b6475;font-size:.875rem}
  .app{font-weight:600;color:#1d2330;margin-bottom:8px}
  .code{font:600 1.5rem/1.2 ui-monospace,SFMono-Regular,Menlo,monospace;letter-spacing:.12em;background:#f0f2f5;border-radius:8px;padding:10px 12px;text-align:center;color:#1d2330}
`;

/**
 * The language of a page oidc-provider renders: the request's ui_locales (RP-Initiated Logout 1.0 §2 has it too),
 * this browser's choice, Accept-Language (lib/i18n/negotiate.ts).
 */
export function pageLocale(ctx: KoaContextWithOIDC): string {
  const params = (ctx.oidc as { params?: Record<string, unknown> } | undefined)?.params;
  return chooseLocale({ uiLocales: params?.ui_locales, personChoice: ctx.cookies.get(LOCALE_COOKIE), acceptLanguage: ctx.get('accept-language') });
}

/**
 * Where the language footer sends the person back after choosing (POST /language): the page's path, never its
 * query. A query is the request's own text (an error page's client_id, say), and these pages show nothing of a
 * request that oidc-provider did not validate, not even escaped inside a hidden field.
 */
export function languageBack(ctx: KoaContextWithOIDC): string {
  // Only a route's own path (lower-case words and slashes: /oidc/device, /oidc/session/end), else the home page.
  // originalUrl: the path as the browser asked for it, mount prefix included.
  const path = new URL(ctx.originalUrl, 'http://portico.invalid').pathname;
  return /^\/oidc(\/[a-z_]+)+$/.test(path) ? path : '/';
}

/** The same language switcher as every other page's footer (app/_components/language-footer.tsx), as plain HTML. */
function languageFooter(locale: string, back: string): string {
  const label = translator(locale, 'footer')('languageLabel');
  const options = supportedLocales()
    .map((option) => `<button type="submit" name="locale" value="${escapeHtml(option)}" lang="${escapeHtml(option)}" aria-pressed="${option === locale}" data-testid="language-${escapeHtml(option)}">${escapeHtml(localeName(option))}</button>`)
    .join('');
  return `<footer class="language-footer" data-testid="language-footer"><form method="post" action="/language" aria-label="${escapeHtml(label)}"><span aria-hidden="true">${escapeHtml(label)}:</span><input type="hidden" name="back" value="${escapeHtml(back)}">${options}</form></footer>`;
}

/** `back`: the path the language footer returns to (languageBack); without it, the page has no footer. */
export function providerPage(title: string, body: string, locale = 'en', back?: string): string {
  return `<!DOCTYPE html>
<html lang="${escapeHtml(locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Portico</title>
<style>${STYLE}</style>
</head>
<body><div class="page"><main><div class="brand">Portico</div>${body}</main>${back ? languageFooter(locale, back) : ''}</div></body>
</html>`;
}

export async function renderError(ctx: KoaContextWithOIDC, out: { error?: string; error_description?: string }): Promise<void> {
  const locale = pageLocale(ctx);
  const t = translator(locale, 'providerPages');
  ctx.type = 'html';
  // The description is oidc-provider's, in English (RFC 6749 error_description); the words around it are the person's.
  ctx.body = providerPage(
    t('errorTitle'),
    `<h1>${escapeHtml(t('errorTitle'))}</h1>
<p lang="en">${escapeHtml(out.error_description ?? 'The request could not be processed.')}</p>
<p>${escapeHtml(t('errorCode'))} <code>${escapeHtml(out.error ?? 'server_error')}</code></p>
<p>${escapeHtml(t('errorAdvice'))}</p>`,
    locale,
    languageBack(ctx),
  );
}

export async function logoutSource(ctx: KoaContextWithOIDC, form: string): Promise<void> {
  const locale = pageLocale(ctx);
  const t = translator(locale, 'providerPages');
  const client = ctx.oidc.client;
  const title = client?.clientName ? t('signOutOf', { client: client.clientName }) : t('signOutTitle');
  ctx.body = providerPage(
    t('signOut'),
    `<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(t('signOutBody'))}</p>
${form}
<button class="primary" autofocus type="submit" form="op.logoutForm" value="yes" name="logout">${escapeHtml(t('signOutYes'))}</button>
<button type="submit" form="op.logoutForm">${escapeHtml(t('signOutNo'))}</button>`,
    locale,
    languageBack(ctx),
  );
}

export async function postLogoutSuccessSource(ctx: KoaContextWithOIDC): Promise<void> {
  const locale = pageLocale(ctx);
  const t = translator(locale, 'providerPages');
  ctx.body = providerPage(t('signedOut'), `<h1>${escapeHtml(t('signedOutTitle'))}</h1><p>${escapeHtml(t('signedOutBody'))}</p>`, locale, languageBack(ctx));
}
