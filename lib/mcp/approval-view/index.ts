// The approval view served as the MCP Apps resource `ui://portico/authorizations-v1.html` (MIME
// `text/html;profile=mcp-app`): one static page, the same for every request, with no credential in it, in the
// language of the person it is shown to (its words come from the catalogs, mcp.approvalView). Its script (./view.ts
// with @modelcontextprotocol/ext-apps) is bundled once per process (../view-bundle.ts).
import { translator, type Translator } from '../../i18n/catalogs';
import { escapeAttribute, escapeHtml, VIEW_BASE_STYLE, viewScript } from '../view-bundle';

export const APPROVAL_VIEW_URI = 'ui://portico/authorizations-v1.html';

/** The statuses the view names in words (the approval contract's, and "decided" once the framed central says so). */
const STATUSES = ['pending', 'approved', 'denied', 'cancelled', 'request_expired', 'grant_expired', 'grant_revoked', 'unknown', 'decided'] as const;

/** The words the view's script shows (it has none of its own). */
function scriptTexts(t: Translator<'mcp.approvalView'>) {
  return {
    summary: t('script.summary'),
    frameTitle: t('script.frameTitle'),
    frameRefused: t('script.frameRefused'),
    cookiesRefused: t('script.cookiesRefused'),
    statusUnreadable: t('script.statusUnreadable'),
    notConnected: t('script.notConnected'),
    cliOnly: t('script.cliOnly'),
    noRequest: t('script.noRequest'),
    linkNotOpened: t('script.linkNotOpened'),
    askStatus: t('script.askStatus'),
    statuses: Object.fromEntries(STATUSES.map((status) => [status, t(`statuses.${status}`)])) as Record<string, string>,
  };
}

export type ApprovalViewTexts = ReturnType<typeof scriptTexts>;

/** The view's HTML for this Portico (its origin only: where the central is), in a language. */
export async function approvalViewHtml(issuer: string, locale = 'en'): Promise<string> {
  const script = await viewScript('lib/mcp/approval-view/view.ts');
  const origin = escapeAttribute(new URL(issuer).origin);
  const t = translator(locale, 'mcp.approvalView');
  return `<!doctype html>
<html lang="${escapeAttribute(locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(t('title'))}</title>
<style>
${VIEW_BASE_STYLE}
code{background:#f1f5f9;padding:1px 4px;border-radius:4px}
iframe{width:100%;height:460px;border:1px solid #cbd5e1;border-radius:8px;margin-top:8px}
.note{background:#fef9c3;border:1px solid #fde047;border-radius:6px;padding:6px 8px}
.muted{color:#64748b}
</style>
</head>
<body>
<main id="view" data-origin="${origin}" data-texts="${escapeAttribute(JSON.stringify(scriptTexts(t)))}">
<h1>${escapeHtml(t('heading'))}</h1>
<p id="summary">${escapeHtml(t('waiting'))}</p>
<dl><dt>${escapeHtml(t('request'))}</dt><dd id="request-id">–</dd><dt>${escapeHtml(t('status'))}</dt><dd id="status" role="status">–</dd></dl>
<p id="status-note" class="muted"></p>
<section id="link-section" hidden>
<label for="approval-url">${escapeHtml(t('linkLabel'))}</label>
<input id="approval-url" readonly>
<button id="open-link" type="button" hidden>${escapeHtml(t('openInBrowser'))}</button>
</section>
<section id="frame-section" hidden></section>
<p id="note" class="note" role="alert" hidden></p>
<p class="muted">${escapeHtml(t('centralLabel'))} <a href="${origin}/central" target="_blank" rel="noopener">${origin}/central</a><br>
${escapeHtml(t('cliLabel'))} <code id="cli">npm run portico -- approvals list</code></p>
</main>
<script>${script}</script>
</body>
</html>`;
}
