// The MCP Apps view `ui://portico/confirmations-v1.html` (browser code, bundled by ./index.ts). It shows a call of an
// approval_required tool that Portico holds for the person's confirmation, and where they give it: Portico's own
// confirmation page, where they sign in and step up (passkey, code or password). It holds no credential and cannot
// confirm anything — nothing a click inside the chat sends confirms a call. Richer behaviour needs the host's proof:
//   - the link is shown only if it is this Portico's confirmation page (any other address in a result is ignored);
//   - `ui/open-link` is offered only as a button (the person's click) and only if the host advertised openLinks.
import { App } from '@modelcontextprotocol/ext-apps/app-with-deps';
import { confirmationIdOfUrl } from '../../confirmations/urls';
import { connectView, element, isObject, note, setText, show, viewTexts } from '../view-dom';
import type { ConfirmationViewTexts } from './index';

const CONFIRMATION_META = 'io.portico/confirmation';


const main = element<HTMLElement>('view');
const issuer = main.dataset.issuer ?? '';
const texts = viewTexts<ConfirmationViewTexts>(main);

interface HeldCall {
  status: 'confirmation_required' | 'waiting' | 'denied';
  tool?: string;
  confirmationUrl?: string;
  expiresAt?: Date;
  text?: string;
}

/** What the result says of the call's confirmation; a link only when it is this Portico's confirmation page. */
function heldCallOf(result: unknown): HeldCall | undefined {
  if (!isObject(result) || !isObject(result._meta)) return undefined;
  const meta = result._meta[CONFIRMATION_META];
  if (!isObject(meta)) return undefined;
  const status = meta.status;
  if (status !== 'confirmation_required' && status !== 'waiting' && status !== 'denied') return undefined;
  const expiresAt = typeof meta.expires_at === 'string' ? new Date(meta.expires_at) : undefined;
  const first = Array.isArray(result.content) ? result.content[0] : undefined;
  return {
    status,
    tool: typeof meta.tool === 'string' ? meta.tool.slice(0, 200) : undefined,
    confirmationUrl: confirmationIdOfUrl(meta.confirmation_url, issuer) ? (meta.confirmation_url as string) : undefined,
    expiresAt: expiresAt && !Number.isNaN(expiresAt.getTime()) ? expiresAt : undefined,
    text: isObject(first) && typeof first.text === 'string' ? first.text.slice(0, 4000) : undefined,
  };
}

function showHeldCall(call: HeldCall) {
  setText('tool', call.tool ?? '–');
  setText('status', call.status === 'denied' ? texts.statusDenied : call.status === 'waiting' ? texts.statusWaiting : texts.statusRequired);
  setText('expires', call.expiresAt ? call.expiresAt.toLocaleTimeString(document.documentElement.lang || undefined) : '–');
  if (call.text) {
    setText('details', call.text);
    show('details-section');
  }
  if (call.status === 'denied') {
    setText('summary', texts.summaryDenied);
    return;
  }
  if (!call.confirmationUrl) {
    setText('summary', texts.summaryNoLink);
    return;
  }
  setText('summary', texts.summaryPending);
  element<HTMLInputElement>('confirmation-url').value = call.confirmationUrl;
  show('link-section');
}

async function start() {
  const app = new App({ name: 'Portico confirmation', version: '1.0.0' }, {}, { autoResize: true });
  const connected = await connectView(app);
  if (!connected) {
    note(texts.notConnected);
    return;
  }
  const result = await connected.firstResult;
  const call = heldCallOf(result);
  if (!call) {
    // The same tool's later results (it ran, or it refused) come to this view too.
    setText('summary', texts.summaryNothing);
    setText('status', texts.statusNone);
    return;
  }
  showHeldCall(call);
  const host = app.getHostCapabilities() ?? {};
  if (call.confirmationUrl && call.status !== 'denied' && isObject(host.openLinks)) {
    const url = call.confirmationUrl;
    show('open-link');
    element<HTMLButtonElement>('open-link').addEventListener('click', () => {
      app.openLink({ url }).catch(() => note(texts.linkNotOpened));
    });
  }
}

void start();
