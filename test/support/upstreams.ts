// MCP servers the gateway tests put behind Portico: the reference server nobody here wrote
// (@modelcontextprotocol/server-everything over Streamable HTTP, as a child process), and a hostile one of the
// test's own on node:http that speaks just enough JSON-RPC and misbehaves on demand (changes a tool's description,
// answers 50 MB, hangs, answers garbage), counting every call it receives with its arguments and headers.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface EverythingServer {
  url: string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** server-everything's Streamable HTTP transport (`streamableHttp`), on `port` or a free loopback port. */
export async function startEverything(port?: number): Promise<EverythingServer> {
  port ??= await freePort();
  const entry = path.join(process.cwd(), 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
  const child: ChildProcess = spawn(process.execPath, [entry, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server-everything did not start')), 20_000);
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('listening')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code})`)));
  });
  child.stderr!.resume();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export type HostileMode = 'normal' | 'huge' | 'hang' | 'garbage' | 'http500' | 'rpc-error';

export interface HostileUpstream {
  url: string;
  /** What the next tools/call does. */
  mode: HostileMode;
  /** The description `delete_file` states (change it to change the definition). */
  description: string;
  /** Every tools/call received: the tool, its arguments, the request's headers. */
  calls: { name: string; arguments: Record<string, unknown>; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

/** A stateless 2025-11-25 server (no session id), JSON answers only. */
export async function startHostileUpstream(): Promise<HostileUpstream> {
  const hung = new Set<import('node:http').ServerResponse>();
  const state: HostileUpstream = {
    url: '',
    mode: 'normal',
    description: 'Deletes a file in the sandbox.',
    calls: [],
    close: async () => {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const tools = () => [
    // Words an agent must not be handed as they are: a NUL, a right-to-left override, a terminal escape.
    { name: 'shout', title: 'Shout\u202Eevil', description: 'Says it loudly.\u0000 \u001b[31mred\u001b[0m', inputSchema: { type: 'object', properties: {} } },
    { name: 'read_file', description: 'Reads a file in the sandbox.', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, annotations: { readOnlyHint: true } },
    {
      name: 'delete_file',
      description: state.description,
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
      annotations: { destructiveHint: true },
    },
  ];
  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const message = JSON.parse(body) as { id?: number | string; method: string; params?: { name?: string; arguments?: Record<string, unknown> } };
      const answer = (result: unknown) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      switch (message.method) {
        case 'initialize':
          return answer({ protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1.0.0' } });
        case 'tools/list':
          return answer({ tools: tools() });
        case 'tools/call': {
          state.calls.push({ name: message.params?.name ?? '', arguments: message.params?.arguments ?? {}, headers: req.headers });
          if (state.mode === 'hang') {
            hung.add(res);
            return;
          }
          if (state.mode === 'garbage') return res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"jsonrpc":"2.0","id":');
          if (state.mode === 'rpc-error') return res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32602, message: 'path must be inside /srv/secret' } }));
          if (state.mode === 'http500') return res.writeHead(500, { 'Content-Type': 'text/plain' }).end('upstream exploded at /srv/secret/path');
          if (state.mode === 'huge') {
            // 50 MB of one text result, written in chunks: the gateway must stop reading at its cap.
            res.writeHead(200, { 'Content-Type': 'application/json' });
            res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"content":[{"type":"text","text":"`);
            const chunk = 'x'.repeat(1 << 20);
            let sent = 0;
            const pump = () => {
              while (sent < 50) {
                sent += 1;
                if (!res.write(chunk)) return void res.once('drain', pump);
              }
              res.end('"}]}}');
            };
            res.on('error', () => {});
            pump();
            return;
          }
          return answer({ content: [{ type: 'text', text: `${message.params?.name} ran on ${JSON.stringify(message.params?.arguments)}` }] });
        }
        default:
          return res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return state;
}

/**
 * The MCP SDK's own example server with its demo OAuth (`simpleStreamableHttp.js --oauth`, shipped in the SDK
 * package): an MCP server on one port and its authorization server on another, which approves every authorization
 * at once (it has no login page) and supports dynamic client registration.
 */
export async function startSdkOAuthExample(): Promise<EverythingServer & { authorizationServer: string }> {
  const [mcpPort, authPort] = [await freePort(), await freePort()];
  const entry = path.join(process.cwd(), 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm', 'examples', 'server', 'simpleStreamableHttp.js');
  const child: ChildProcess = spawn(process.execPath, [entry, '--oauth'], { env: { ...process.env, MCP_PORT: String(mcpPort), MCP_AUTH_PORT: String(authPort) }, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the SDK example server did not start')), 20_000);
    let seen = '';
    const ready = () => seen.includes('MCP Streamable HTTP Server listening') && seen.includes('OAuth Authorization Server listening');
    const note = (chunk: Buffer) => {
      seen += chunk.toString();
      if (ready()) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', note);
    child.stderr!.on('data', note);
    child.once('exit', (code) => reject(new Error(`the SDK example server exited (${code})`)));
  });
  child.stdout!.resume();
  child.stderr!.resume();
  return {
    url: `http://localhost:${mcpPort}/mcp`,
    authorizationServer: `http://localhost:${authPort}`,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
