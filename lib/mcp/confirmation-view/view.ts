// The MCP Apps view `ui://portico/confirmations-v1.html` (browser code, bundled by ./index.ts). It shows a call of an
// approval_required tool that Portico holds for the person's confirmation, and where they give it: Portico's own
// confirmation page, where they sign in and step up (passkey, code or password). It holds no credential and cannot
// confirm anything — nothing a click inside the chat sends confirms a call. Richer behaviour needs the host's proof:
//   - the link is shown only if it is this Portico's confirmation page (any other address in a result is ignored);
//   - `ui/open-link` is offered only as a button (the person's click) and only if the host advertised openLinks.
import { App } from '@modelcontextprotocol/ext-apps/app-with-deps';
import { confirmationIdOfUrl } from '../confirmation-urls';
import { connectView, element, isObject, note, setText, show } from '../view-dom';

const CONFIRMATION_META = 'io.portico/confirmation';


const main = element<HTMLElement>('view');
const issuer = main.dataset.issuer ?? '';

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
  setText('status', call.status === 'denied' ? 'denied' : call.status === 'waiting' ? 'waiting for your confirmation' : 'needs your confirmation');
  setText('expires', call.expiresAt ? call.expiresAt.toLocaleTimeString() : '–');
  if (call.text) {
    setText('details', call.text);
    show('details-section');
  }
  if (call.status === 'denied') {
    setText('summary', 'This call was denied in Portico. It will not run; the agent may ask again.');
    return;
  }
  if (!call.confirmationUrl) {
    setText('summary', 'This call waits for a confirmation, but this view did not receive a Portico page to confirm it on. Ask the agent for the link.');
    return;
  }
  setText('summary', 'The agent asked to run this call. It runs only after you confirm it in Portico, where you sign in and confirm with your passkey, code or password. Then tell the agent to go on: its retry runs the call once.');
  element<HTMLInputElement>('confirmation-url').value = call.confirmationUrl;
  show('link-section');
}

async function start() {
  const app = new App({ name: 'Portico confirmation', version: '1.0.0' }, {}, { autoResize: true });
  const connected = await connectView(app);
  if (!connected) {
    note('The chat did not connect this view. Ask the agent for the confirmation link.');
    return;
  }
  const result = await connected.firstResult;
  const call = heldCallOf(result);
  if (!call) {
    // The same tool's later results (it ran, or it refused) come to this view too.
    setText('summary', 'Nothing waits for a confirmation here: the call has run or ended.');
    setText('status', 'no confirmation pending');
    return;
  }
  showHeldCall(call);
  const host = app.getHostCapabilities() ?? {};
  if (call.confirmationUrl && call.status !== 'denied' && isObject(host.openLinks)) {
    const url = call.confirmationUrl;
    show('open-link');
    element<HTMLButtonElement>('open-link').addEventListener('click', () => {
      app.openLink({ url }).catch(() => note('The chat did not open the link: copy it instead.'));
    });
  }
}

void start();
