// The approval view served as the MCP Apps resource `ui://portico/authorizations-v1.html` (MIME
// `text/html;profile=mcp-app`): one static page, the same for every request and person, with no credential in it.
// Its script (./view.ts with @modelcontextprotocol/ext-apps) is bundled once per process (../view-bundle.ts).
import { escapeAttribute, VIEW_BASE_STYLE, viewScript } from '../view-bundle';

export const APPROVAL_VIEW_URI = 'ui://portico/authorizations-v1.html';

/** The view's HTML for this Portico (its origin only: where the central is). */
export async function approvalViewHtml(issuer: string): Promise<string> {
  const script = await viewScript('lib/mcp/approval-view/view.ts');
  const origin = escapeAttribute(new URL(issuer).origin);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Portico access request</title>
<style>
${VIEW_BASE_STYLE}
code{background:#f1f5f9;padding:1px 4px;border-radius:4px}
iframe{width:100%;height:460px;border:1px solid #cbd5e1;border-radius:8px;margin-top:8px}
.note{background:#fef9c3;border:1px solid #fde047;border-radius:6px;padding:6px 8px}
.muted{color:#64748b}
</style>
</head>
<body>
<main id="view" data-origin="${origin}">
<h1>Access request</h1>
<p id="summary">Waiting for the request from the chat…</p>
<dl><dt>Request</dt><dd id="request-id">–</dd><dt>Status</dt><dd id="status" role="status">–</dd></dl>
<p id="status-note" class="muted"></p>
<section id="link-section" hidden>
<label for="approval-url">Link for the operator (opens the Portico central; they sign in there)</label>
<input id="approval-url" readonly>
<button id="open-link" type="button" hidden>Open in the browser</button>
</section>
<section id="frame-section" hidden></section>
<p id="note" class="note" role="alert" hidden></p>
<p class="muted">Operator central: <a href="${origin}/central" target="_blank" rel="noopener">${origin}/central</a><br>
Or, on the Portico host: <code id="cli">npm run portico -- approvals list</code></p>
</main>
<script>${script}</script>
</body>
</html>`;
}
