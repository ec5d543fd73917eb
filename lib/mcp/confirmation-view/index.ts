// The confirmation view served as the MCP Apps resource `ui://portico/confirmations-v1.html` (MIME
// `text/html;profile=mcp-app`): one static page, the same for every call, with no credential in it, in the language
// of the person it is shown to (its words come from the catalogs, mcp.confirmationView). Its script (./view.ts) is
// bundled once per process (../view-bundle.ts).
import { translator, type Translator } from '../../i18n/catalogs';
import { escapeAttribute, escapeHtml, VIEW_BASE_STYLE, viewScript } from '../view-bundle';

export const CONFIRMATION_VIEW_URI = 'ui://portico/confirmations-v1.html';

/** The words the view's script shows (it has none of its own). */
function scriptTexts(t: Translator<'mcp.confirmationView'>) {
  return {
    statusDenied: t('script.statusDenied'),
    statusWaiting: t('script.statusWaiting'),
    statusRequired: t('script.statusRequired'),
    statusNone: t('script.statusNone'),
    summaryDenied: t('script.summaryDenied'),
    summaryNoLink: t('script.summaryNoLink'),
    summaryPending: t('script.summaryPending'),
    summaryNothing: t('script.summaryNothing'),
    notConnected: t('script.notConnected'),
    linkNotOpened: t('script.linkNotOpened'),
  };
}

export type ConfirmationViewTexts = ReturnType<typeof scriptTexts>;

/** The view's HTML for this Portico (its issuer: where the confirmation pages are), in a language. */
export async function confirmationViewHtml(issuer: string, locale = 'en'): Promise<string> {
  const script = await viewScript('lib/mcp/confirmation-view/view.ts');
  const t = translator(locale, 'mcp.confirmationView');
  return `<!doctype html>
<html lang="${escapeAttribute(locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(t('title'))}</title>
<style>
${VIEW_BASE_STYLE}
pre{white-space:pre-wrap;word-break:break-word;background:#f8fafc;border:1px solid #e2e8f0;border-radius:6px;padding:8px;margin:4px 0 0}
.note{background:#fef9c3;border:1px solid #fde047;border-radius:6px;padding:6px 8px}
.muted{color:#64748b}
</style>
</head>
<body>
<main id="view" data-issuer="${escapeAttribute(issuer)}" data-texts="${escapeAttribute(JSON.stringify(scriptTexts(t)))}">
<h1>${escapeHtml(t('heading'))}</h1>
<p id="summary">${escapeHtml(t('waiting'))}</p>
<dl><dt>${escapeHtml(t('tool'))}</dt><dd id="tool">–</dd><dt>${escapeHtml(t('status'))}</dt><dd id="status" role="status">–</dd><dt>${escapeHtml(t('expires'))}</dt><dd id="expires">–</dd></dl>
<section id="link-section" hidden>
<label for="confirmation-url">${escapeHtml(t('linkLabel'))}</label>
<input id="confirmation-url" readonly>
<button id="open-link" type="button" hidden>${escapeHtml(t('openInBrowser'))}</button>
</section>
<section id="details-section" hidden>
<details><summary>${escapeHtml(t('detailsSummary'))}</summary><pre id="details"></pre></details>
</section>
<p id="note" class="note" role="alert" hidden></p>
<p class="muted">${escapeHtml(t('onlyYou'))}</p>
</main>
<script>${script}</script>
</body>
</html>`;
}
