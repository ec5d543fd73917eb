// node:http ⇄ web-standard Request/Response: the glue a kit route needs on a plain Node server (the example app), and
// the one Portico uses to serve /api/mcp from server.ts without going through Next.js.
import type { IncomingMessage, ServerResponse } from 'node:http';

const MAX_BODY_BYTES = 1024 * 1024;

/** The request as a web Request, its body read whole; a body over `maxBodyBytes` throws a RangeError (answer 413). */
export async function toWebRequest(req: IncomingMessage, origin: string, maxBodyBytes = MAX_BODY_BYTES): Promise<Request> {
  const body = await readBody(req, maxBodyBytes);
  return new Request(new URL(req.url ?? '/', origin), { method: req.method ?? 'GET', headers: headersOf(req), body: body && new Uint8Array(body) });
}

/**
 * The request's method, URL and headers as a web Request without a body, and its body read whole beside it (for a
 * handler that takes the body as it is: no web stream is built to carry it). A body over `maxBodyBytes` throws a
 * RangeError (answer 413).
 */
export async function toWebRequestWithBody(req: IncomingMessage, origin: string, maxBodyBytes = MAX_BODY_BYTES): Promise<{ request: Request; body?: Buffer }> {
  const body = await readBody(req, maxBodyBytes);
  return { request: new Request(new URL(req.url ?? '/', origin), { method: req.method ?? 'GET', headers: headersOf(req) }), body };
}

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  return headers;
}

/**
 * The whole body (none for GET and HEAD), refused past `maxBodyBytes`. Read with the stream's events rather than
 * `for await`: an async iterator per request (its promises and its end-of-stream watcher) cost every MCP call more
 * than the body's own bytes did (docs/benchmarks.md). A body that goes past the limit, or a request aborted midway,
 * destroys the request, as leaving a `for await` early does: nothing more of it is read.
 */
function readBody(req: IncomingMessage, maxBodyBytes: number): Promise<Buffer | undefined> {
  const method = req.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD') return Promise.resolve(undefined);
  if (Number(req.headers['content-length'] ?? 0) > maxBodyBytes) return Promise.reject(new RangeError('request body too large'));
  // A request read or destroyed before it got here (a kit user's middleware, an await before the body) gets what
  // `for await` gave it: nothing left to read, or the failure; never a promise no event will settle.
  if (req.destroyed) return Promise.reject(new Error('the request was aborted before its body ended'));
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const fail = (error: Error) => {
      stop();
      req.destroy();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) fail(new RangeError('request body too large'));
      else chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onError = (error: Error) => fail(error);
    // Closed before its end (the client went away): never a promise left waiting.
    const onClose = () => fail(new Error('the request was aborted before its body ended'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
    // A 'data' listener does not restart a stream someone paused.
    req.resume();
  });
}

export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name === 'set-cookie') return;
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  if (!response.body) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  // A JSON answer (complete by nature): status line, headers and body in one write, with its length. Anything else
  // (an event stream carrying an elicitation before its result, a download) is streamed as it comes.
  if (/^application\/(?:[\w.+-]+\+)?json\b/i.test(response.headers.get('content-type') ?? '')) {
    const body = Buffer.from(await response.arrayBuffer());
    headers['content-length'] = String(body.length);
    res.writeHead(response.status, headers);
    res.end(body);
    return;
  }
  res.writeHead(response.status, headers);
  // Streamed, not buffered: an MCP answer may be an event stream that carries a request to the client (an
  // elicitation) before its result.
  res.flushHeaders();
  const reader = response.body.getReader();
  res.once('close', () => void reader.cancel().catch(() => {}));
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) res.write(chunk.value);
  } catch {
    // The client went away, or the producer failed: end what was sent.
  }
  res.end();
}
