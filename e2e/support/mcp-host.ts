// A test MCP host on an https loopback origin: it serves a page that renders Portico's MCP Apps view (the HTML of
// `resources/read`) and plays the host side of the bridge (e2e/support/mcp-host/host.ts). The view's tool calls go
// through this server to the MCP SDK client the test holds.
import { createServer, type Server } from 'node:https';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { loopbackTlsFiles } from './tls';

export interface McpHost {
  origin: string;
  close(): Promise<void>;
}

let hostScript: Promise<string> | undefined;

function bundleHost(): Promise<string> {
  hostScript ??= build({ entryPoints: [path.join(process.cwd(), 'e2e/support/mcp-host/host.ts')], bundle: true, format: 'iife', platform: 'browser', write: false, logLevel: 'silent' }).then(
    (result) => result.outputFiles[0]!.text,
  );
  return hostScript;
}

export async function startMcpHost(port: number, setup: { client: Client; viewHtml: string; toolResult: unknown; hostCapabilities: Record<string, unknown> }): Promise<McpHost> {
  const tls = loopbackTlsFiles();
  const script = await bundleHost();
  const server: Server = createServer({ key: readFileSync(tls.keyPath), cert: readFileSync(tls.certPath) }, (req, res) => {
    void (async () => {
      if (req.url === '/') {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        res.end(`<!doctype html><html><head><title>Test MCP host</title></head><body><h1>Test MCP host</h1><script src="/host.js"></script></body></html>`);
      } else if (req.url === '/host.js') {
        res.writeHead(200, { 'Content-Type': 'text/javascript' });
        res.end(script);
      } else if (req.url === '/setup') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ viewHtml: setup.viewHtml, toolResult: setup.toolResult, hostCapabilities: setup.hostCapabilities }));
      } else if (req.url === '/call-tool' && req.method === 'POST') {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const params = JSON.parse(Buffer.concat(chunks).toString()) as { name: string; arguments?: Record<string, unknown> };
        const result = await setup.client.callTool({ name: params.name, arguments: params.arguments });
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(result));
      } else if (req.url?.startsWith('/frame?')) {
        // A page that frames any URL directly (the external central must refuse it).
        const target = new URL(req.url, 'https://host').searchParams.get('src') ?? '';
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        res.end(`<!doctype html><html><body><iframe id="direct" title="direct" src="${target.replace(/"/g, '&quot;')}" style="width:700px;height:500px"></iframe></body></html>`);
      } else {
        res.writeHead(404).end();
      }
    })().catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    origin: `https://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
