// The node:http ⇄ web glue's body reading (app-kit/node-http.ts), on a real server and a real client: whole bodies in
// one chunk or many, the limit by Content-Length and by counting (a chunked body has no length), and a client that
// goes away midway — never a request left waiting.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toWebRequestWithBody } from '../../app-kit/node-http';

const LIMIT = 1024;

describe('toWebRequestWithBody', () => {
  let server: Server;
  let origin: string;
  /** What the server made of each request, in order: the body's text, or the error's class and message. */
  const outcomes: string[] = [];
  let settled: () => void = () => {};

  beforeAll(async () => {
    server = createServer(async (req, res) => {
      // What a kit user's code may do before it reads the body: pause the stream, or wait a while.
      if (req.url === '/paused') {
        req.pause();
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (req.url === '/destroyed') req.destroy();
      toWebRequestWithBody(req, 'http://portico.test', LIMIT).then(
        ({ request, body }) => {
          outcomes.push(`${request.method} ${new URL(request.url).pathname} ${request.headers.get('x-probe') ?? ''} ${body?.toString('utf8') ?? '(none)'}`);
          settled();
          res.writeHead(200).end('ok');
        },
        (error: Error) => {
          outcomes.push(`${error.constructor.name}: ${error.message}`);
          settled();
          if (!res.destroyed) res.writeHead(413).end();
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const nextOutcome = () => new Promise<string>((resolve) => (settled = () => resolve(outcomes.at(-1)!)));

  it('reads a body whole, in one chunk or many, and none for GET', async () => {
    let outcome = nextOutcome();
    expect((await fetch(`${origin}/api/mcp?x=1`, { method: 'POST', headers: { 'x-probe': 'a' }, body: 'hello' })).status).toBe(200);
    expect(await outcome).toBe('POST /api/mcp a hello');

    outcome = nextOutcome();
    const parts = ['{"jsonrpc":', '"2.0",', '"id":1}'];
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
        controller.close();
      },
    });
    expect((await fetch(`${origin}/chunked`, { method: 'POST', body: stream, duplex: 'half' } as RequestInit)).status).toBe(200);
    expect(await outcome).toBe(`POST /chunked  ${parts.join('')}`);

    outcome = nextOutcome();
    expect((await fetch(`${origin}/page`)).status).toBe(200);
    expect(await outcome).toBe('GET /page  (none)');
  });

  it('refuses a body over the limit, by its Content-Length or, without one, by counting', async () => {
    let outcome = nextOutcome();
    expect((await fetch(`${origin}/big`, { method: 'POST', body: 'x'.repeat(LIMIT + 1) })).status).toBe(413);
    expect(await outcome).toBe('RangeError: request body too large');

    // Chunked: no length to refuse it by, so the reading stops at the limit and the request is destroyed.
    outcome = nextOutcome();
    const chunk = new TextEncoder().encode('y'.repeat(600));
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.length;
        if (sent > 64 * LIMIT) controller.close();
        else controller.enqueue(chunk);
      },
    });
    await fetch(`${origin}/big-chunked`, { method: 'POST', body: endless, duplex: 'half' } as RequestInit).catch(() => undefined);
    expect(await outcome).toBe('RangeError: request body too large');
  });

  it('reads a request paused before, and refuses one destroyed before, instead of waiting for events that never come', async () => {
    let outcome = nextOutcome();
    expect((await fetch(`${origin}/paused`, { method: 'POST', body: 'after a pause' })).status).toBe(200);
    expect(await outcome).toBe('POST /paused  after a pause');

    outcome = nextOutcome();
    await fetch(`${origin}/destroyed`, { method: 'POST', body: 'never read' }).catch(() => undefined);
    expect(await outcome).toBe('Error: the request was aborted before its body ended');
  });

  it('gives up on a request whose client goes away before the body ends', async () => {
    const outcome = nextOutcome();
    const received = new Promise((resolve) => server.once('request', resolve));
    const req = httpRequest(`${origin}/aborted`, { method: 'POST', headers: { 'content-length': '500' } });
    req.on('error', () => {});
    req.write('part of it');
    // Gone once the server has the request (its headers), with 490 bytes of its body never sent.
    await received;
    req.destroy();
    // Node reports the abort as an error ("aborted"), else the close before the end does: either way, refused.
    expect(await outcome).toMatch(/^Error: (aborted|the request was aborted before its body ended)$/);
  });
});
