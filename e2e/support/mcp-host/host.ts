// Browser code of the test MCP host (bundled by ../mcp-host.ts): the host side of MCP Apps, with the ext-apps
// AppBridge. It renders the view it is given in the minimal sandbox (scripts and same-origin, no forms, no popups),
// advertises the capabilities the test chose, hands the view the tool result, and forwards the view's tool calls to
// the test's MCP client through its own server.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

interface HostSetup {
  viewHtml: string;
  toolResult: Record<string, unknown>;
  hostCapabilities: Record<string, unknown>;
}

declare global {
  interface Window {
    porticoHost: { openedLinks: string[]; toolCalls: string[] };
  }
}

async function main() {
  const setup = (await (await fetch('/setup')).json()) as HostSetup;
  window.porticoHost = { openedLinks: [], toolCalls: [] };
  const frame = document.createElement('iframe');
  frame.id = 'view';
  frame.title = 'Portico view';
  frame.setAttribute('sandbox', 'allow-scripts allow-same-origin');
  frame.style.cssText = 'width:760px;height:900px;border:1px solid #94a3b8';
  document.body.append(frame);

  const bridge = new AppBridge(null, { name: 'Test host', version: '1.0.0' }, setup.hostCapabilities as never);
  bridge.oncalltool = async (params) => {
    window.porticoHost.toolCalls.push(params.name);
    const answer = await fetch('/call-tool', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(params) });
    return answer.json();
  };
  bridge.onopenlink = async ({ url }) => {
    window.porticoHost.openedLinks.push(url);
    return {};
  };
  bridge.oninitialized = () => {
    void bridge.sendToolResult(setup.toolResult as never);
  };
  // Listening before the view loads: its ui/initialize is sent as soon as it runs.
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  frame.srcdoc = setup.viewHtml;
}

void main();
