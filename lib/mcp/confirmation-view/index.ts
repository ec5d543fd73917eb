// The confirmation view served as the MCP Apps resource `ui://portico/confirmations-v1.html` (MIME
// `text/html;profile=mcp-app`): one static page, the same for every call and person, with no credential in it. Its
// script (./view.ts) is bundled once per process (../view-bundle.ts).
import { escapeAttribute, VIEW_BASE_STYLE, viewScript } from '../view-bundle';

export const CONFIRMATION_VIEW_URI = 'ui://portico/confirmations-v1.html';

/** The view's HTML for this Portico (its issuer: where the confirmation pages are). */
export async function confirmationViewHtml(issuer: string): Promise<string> {
  const script = await viewScript('lib/mcp/confirmation-view/view.ts');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Portico confirmation</title>
<style>
${VIEW_BASE_STYLE}
pre{white-space:pre-wrap;word-break:break-word;background:#f8fafc;border:1px solid #e2e8f0;border-radius:6px;padding:8px;margin:4px 0 0}
.note{background:#fef9c3;border:1px solid #fde047;border-radius:6px;padding:6px 8px}
.muted{color:#64748b}
</style>
</head>
<body>
<main id="view" data-issuer="${escapeAttribute(issuer)}">
<h1>Confirm a call</h1>
<p id="summary">Waiting for the call from the chat…</p>
<dl><dt>Tool</dt><dd id="tool">–</dd><dt>Status</dt><dd id="status" role="status">–</dd><dt>Expires</dt><dd id="expires">–</dd></dl>
<section id="link-section" hidden>
<label for="confirmation-url">Confirmation page (Portico; you sign in there)</label>
<input id="confirmation-url" readonly>
<button id="open-link" type="button" hidden>Open in the browser</button>
</section>
<section id="details-section" hidden>
<details><summary>What the agent was told</summary><pre id="details"></pre></details>
</section>
<p id="note" class="note" role="alert" hidden></p>
<p class="muted">Nothing in this chat can confirm the call: only you can, on Portico's page.</p>
</main>
<script>${script}</script>
</body>
</html>`;
}
