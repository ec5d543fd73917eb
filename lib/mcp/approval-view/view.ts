// The MCP Apps view `ui://portico/authorizations-v1.html` (browser code, bundled by ./index.ts). It shows one access
// request and where an operator decides it. It holds no credential and cannot approve anything: there is no approval
// tool for it to call. Each richer behaviour needs a proof from the host, and anything missing, malformed, refused or
// slow leaves the plain HTTPS link and the CLI command on screen:
//   - the embedded central is framed only if the ui/initialize handshake negotiated the version this view was built
//     for and the host's sandbox lists Portico's origin in `sandbox.csp.frameDomains`, and Portico offered it;
//   - `ui/open-link` is offered only as a button (a click by the operator) and only if the host advertised openLinks;
//   - the status is read through the host only if `serverTools` is an object (true, lists or text enable nothing).
import { App, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/ext-apps/app-with-deps';
import { centralRequestUrl, embeddedCentralRequestUrl, isApprovalRequestId } from '../../approvals/central-urls';
import { connectView, element, isObject, note, setText, show, viewTexts, wordFor } from '../view-dom';
import type { ApprovalViewTexts } from './index';
import { FRAME_READY_TIMEOUT_MS } from './timing';

const STATUS_TOOL = 'permissions.approval_status';
const STATUS_POLL_MS = 3000;
const STATUS_POLL_LIMIT = 200;


const main = element<HTMLElement>('view');
const issuerOrigin = main.dataset.origin ?? '';
const texts = viewTexts<ApprovalViewTexts>(main);
const statusWord = (status: string) => wordFor(texts.statuses ?? {}, status);

// The version the host answered ui/initialize with: the App does not keep it, so the handshake is watched here.
let negotiatedVersion: string | undefined;
window.addEventListener('message', (event) => {
  if (event.source !== window.parent || !isObject(event.data) || !isObject(event.data.result)) return;
  const version = event.data.result.protocolVersion;
  if (typeof version === 'string' && isObject(event.data.result.hostCapabilities)) negotiatedVersion = version;
});

interface ShownRequest {
  id: string;
  approvalUrl: string;
  embeddedUrl?: string;
}

/** The tool result's structured fields (the approval contract), or nothing. */
const fieldsOf = (result: unknown): Record<string, unknown> => (isObject(result) && isObject(result.structuredContent) ? result.structuredContent : {});

/** Only this Portico's own pages for this very request are shown, framed or opened. */
function requestFrom(result: unknown): ShownRequest | undefined {
  const content = fieldsOf(result);
  const id = content.request_id;
  if (!isApprovalRequestId(id)) return undefined;
  const approvalUrl = centralRequestUrl(id, issuerOrigin);
  if (content.operator_approval_url !== approvalUrl) return undefined;
  const embeddedUrl = embeddedCentralRequestUrl(id, issuerOrigin);
  return { id, approvalUrl, embeddedUrl: content.embedded_central_url === embeddedUrl ? embeddedUrl : undefined };
}

function showRequest(request: ShownRequest, status: unknown) {
  setText('summary', texts.summary);
  setText('request-id', request.id);
  setText('status', statusWord(typeof status === 'string' ? status : 'pending'));
  (element<HTMLInputElement>('approval-url')).value = request.approvalUrl;
  setText('cli', `npm run portico -- approvals show ${request.id}`);
  show('link-section');
}

function frameCentral(request: ShownRequest, onDecided: () => void) {
  const frame = document.createElement('iframe');
  frame.title = texts.frameTitle;
  frame.id = 'central-frame';
  let ready = false;
  const timer = window.setTimeout(() => {
    if (ready) return;
    frame.remove();
    note(texts.frameRefused);
  }, FRAME_READY_TIMEOUT_MS);
  window.addEventListener('message', (event) => {
    if (event.source !== frame.contentWindow || event.origin !== issuerOrigin || !isObject(event.data) || event.data.type !== 'portico.embedded-central') return;
    if (event.data.requestId !== request.id) return;
    if (event.data.event === 'ready') {
      ready = true;
      window.clearTimeout(timer);
    } else if (event.data.event === 'cookies_unavailable') {
      note(texts.cookiesRefused);
    } else if (event.data.event === 'decided') {
      onDecided();
    }
  });
  frame.src = request.embeddedUrl!;
  element('frame-section').append(frame);
  show('frame-section');
}

async function pollStatus(app: App, request: ShownRequest) {
  for (let attempt = 0; attempt < STATUS_POLL_LIMIT; attempt += 1) {
    try {
      const result = await app.callServerTool({ name: STATUS_TOOL, arguments: { request_id: request.id } });
      const status = isObject(result.structuredContent) ? result.structuredContent.status : undefined;
      if (typeof status === 'string') {
        setText('status', statusWord(status));
        if (status !== 'pending') return;
      }
    } catch {
      setText('status-note', texts.statusUnreadable);
      return;
    }
    await new Promise((resolve) => window.setTimeout(resolve, STATUS_POLL_MS));
  }
}

async function start() {
  const app = new App({ name: 'Portico access request', version: '1.0.0' }, {}, { autoResize: true });
  let shown: ShownRequest | undefined;
  const connected = await connectView(app);
  if (!connected) {
    note(texts.notConnected);
    return;
  }
  const result = await connected.firstResult;
  shown = requestFrom(result);
  if (!shown) {
    // A request the central may not decide (permanent, broad, elevated) comes without a link: the CLI decides it.
    const id = fieldsOf(result).request_id;
    if (isApprovalRequestId(id)) {
      setText('request-id', id);
      setText('cli', `npm run portico -- approvals show ${id}`);
      note(texts.cliOnly);
    } else {
      note(texts.noRequest);
    }
    return;
  }
  const request = shown;
  showRequest(request, fieldsOf(result).status);
  const host = app.getHostCapabilities() ?? {};

  if (isObject(host.openLinks)) {
    const button = element<HTMLButtonElement>('open-link');
    show('open-link');
    button.addEventListener('click', () => {
      app.openLink({ url: request.approvalUrl }).catch(() => note(texts.linkNotOpened));
    });
  }

  const frameDomains = isObject(host.sandbox) && isObject(host.sandbox.csp) ? host.sandbox.csp.frameDomains : undefined;
  const frameable = request.embeddedUrl !== undefined && negotiatedVersion === LATEST_PROTOCOL_VERSION && Array.isArray(frameDomains) && frameDomains.includes(issuerOrigin);
  const statusReadable = isObject(host.serverTools);
  if (frameable) frameCentral(request, () => (statusReadable ? void pollStatus(app, request) : setText('status', statusWord('decided'))));
  if (statusReadable) void pollStatus(app, request);
  else setText('status-note', texts.askStatus);
}

void start();
