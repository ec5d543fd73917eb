// Portico's AuthZEN routes as Next serves them (the route handlers themselves), behind a real Node HTTP listener, so
// a test speaks plain HTTP to them and nothing else. The runtime they read is the test's to install.
import { createServer, type Server } from 'node:http';
import { GET as configuration } from '../../app/.well-known/authzen-configuration/route';
import { POST as evaluation } from '../../app/access/v1/evaluation/route';
import { POST as evaluations } from '../../app/access/v1/evaluations/route';
import { POST as requests } from '../../app/access/v1/requests/route';
import { GET as requestStatus } from '../../app/access/v1/requests/[task]/route';
import { POST as cancelRequest } from '../../app/access/v1/requests/[task]/cancel/route';
import { POST as searchAction } from '../../app/access/v1/search/action/route';
import { POST as searchResource } from '../../app/access/v1/search/resource/route';
import { POST as searchSubject } from '../../app/access/v1/search/subject/route';

type Handler = (request: Request, context: { params: Promise<{ task: string }> }) => Promise<Response> | Response;

/** Listens on a free loopback port; `issuer` gives the URL requests are read under (known once listening). */
export function serveAuthzen(issuer: () => string): Promise<Server> {
  const routes: [RegExp, string, Handler][] = [
    [/^\/\.well-known\/authzen-configuration$/, 'GET', () => configuration()],
    [/^\/access\/v1\/evaluation$/, 'POST', (request) => evaluation(request)],
    [/^\/access\/v1\/evaluations$/, 'POST', (request) => evaluations(request)],
    [/^\/access\/v1\/search\/subject$/, 'POST', (request) => searchSubject(request)],
    [/^\/access\/v1\/search\/resource$/, 'POST', (request) => searchResource(request)],
    [/^\/access\/v1\/search\/action$/, 'POST', (request) => searchAction(request)],
    [/^\/access\/v1\/requests$/, 'POST', (request) => requests(request)],
    [/^\/access\/v1\/requests\/([^/]+)$/, 'GET', (request, context) => requestStatus(request, context)],
    [/^\/access\/v1\/requests\/([^/]+)\/cancel$/, 'POST', (request, context) => cancelRequest(request, context)],
  ];
  const server = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const url = new URL(incoming.url ?? '/', issuer());
    const route = routes.find(([path, method]) => path.test(url.pathname) && method === incoming.method);
    if (!route) {
      outgoing.writeHead(404).end();
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) if (typeof value === 'string') headers.set(name, value);
    const request = new Request(url, { method: incoming.method, headers, ...(chunks.length ? { body: Buffer.concat(chunks) } : {}) });
    const task = route[0].exec(url.pathname)?.[1] ?? '';
    const response = await route[2](request, { params: Promise.resolve({ task }) });
    outgoing.writeHead(response.status, Object.fromEntries(response.headers.entries()));
    outgoing.end(Buffer.from(await response.arrayBuffer()));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
