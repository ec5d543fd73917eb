// Baselines for the authorized MCP call: an MCP SDK server with the same safe tool (whoami's answer shape) on plain
// node:http, stateless (a new server and transport per request, as Portico makes them), in two forms:
// - POST /mcp, the fair one: one JSON Schema validator for the process (as Portico shares one), a bearer access token
//   verified with jose (ES256, a local key, as Portico verifies its own), one prepared statement per call that
//   reads the person and the MCP session (the equivalent of Portico's caller statement), and whoami's own read of
//   the person's organizations (as Portico's whoami makes it: the tool's work, the same on both sides);
// - POST /mcp-bare: the SDK's defaults (a validator built per server), no authorization, no database.
// The same two for MCP 2026-07-28, on the SDK v2 line's dual-era handler (`createMcpHandler`, stateless, modern
// only), as Portico serves that revision: POST /mcp-modern (shared validator, bearer verified, the person read by one
// prepared statement, the revision having no session; whoami's organizations read) and POST /mcp-modern-bare.
// GET /__token gives the bearer token the fair one accepts. Started by bench/run.ts as a process of its own:
//   tsx bench/baselines/mcp-server.ts <port> <database url>
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { createMcpHandler, McpServer as ModernMcpServer } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator as ModernValidator } from '@modelcontextprotocol/server/validators/ajv';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT, createLocalJWKSet } from 'jose';
import postgres from 'postgres';
import { BENCH_IDLE_SECONDS } from '../lib/pools';

const port = Number(process.argv[2]);
const databaseUrl = process.argv[3]!;
const issuer = `http://127.0.0.1:${port}`;
const sql = postgres(databaseUrl, { max: 20, idle_timeout: BENCH_IDLE_SECONDS, onnotice: () => {} });
const [person] = await sql<{ id: string; email: string; name: string }[]>`select id, email, name from users order by created_at limit 1`;
if (!person) throw new Error('the bench database has no person');

const { publicKey, privateKey } = await generateKeyPair('ES256');
const keys = createLocalJWKSet({ keys: [{ ...(await exportJWK(publicKey)), kid: 'baseline', alg: 'ES256' }] });
const token = await new SignJWT({ scope: 'mcp', client_id: 'bench' })
  .setProtectedHeader({ alg: 'ES256', kid: 'baseline', typ: 'at+jwt' })
  .setIssuer(issuer)
  .setAudience(`${issuer}/mcp`)
  .setSubject(person.id)
  .setIssuedAt()
  .setExpirationTime('2h')
  .sign(privateKey);

const sharedValidator = new AjvJsonSchemaValidator();

/**
 * whoami's answer as Portico's tool gives it: the person and their organizations, read by one prepared statement
 * per call (the fair servers); the bare ones answer a constant of the same shape, with no database.
 */
async function whoamiAnswer(withDatabase: boolean): Promise<{ content: { type: 'text'; text: string }[]; structuredContent: Record<string, unknown> }> {
  const organizations = withDatabase
    ? await sql<{ slug: string; name: string; role: string }[]>`
        select o.slug, o.name, m.role from memberships m join organizations o on o.id = m.org_id
        where m.user_id = ${person!.id} order by o.name`
    : [{ slug: 'bench', name: 'Bench', role: 'owner' }];
  const answer = { sub: person!.id, email: person!.email, name: person!.name, act: null, client_id: 'bench', organizations: organizations.map(({ slug, name, role }) => ({ slug, name, role })) };
  return { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer };
}

function server(shared: boolean): McpServer {
  const mcp = new McpServer({ name: 'baseline', version: '1.0.0' }, shared ? { jsonSchemaValidator: sharedValidator } : {});
  mcp.registerTool('whoami', { description: 'Who the caller is.', inputSchema: {} }, () => whoamiAnswer(shared));
  return mcp;
}

const modernValidator = new ModernValidator();

/** The 2026-07-28 server: the same tool on the SDK v2 line, for one request. */
function modernServer(shared: boolean): ModernMcpServer {
  const mcp = new ModernMcpServer({ name: 'baseline', version: '1.0.0' }, shared ? { jsonSchemaValidator: modernValidator } : {});
  mcp.registerTool('whoami', { description: 'Who the caller is.' }, () => whoamiAnswer(shared));
  return mcp;
}
const modernShared = createMcpHandler(() => modernServer(true), { legacy: 'reject' });
const modernBare = createMcpHandler(() => modernServer(false), { legacy: 'reject' });

/** A 2026-07-28 exchange: the node request as a web Request (its body already read), the answer written back. */
async function answerModern(req: IncomingMessage, res: ServerResponse, body: unknown, handler: typeof modernShared): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  const response = await handler.fetch(new Request(`${issuer}${req.url}`, { method: 'POST', headers }), { parsedBody: body });
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}

async function authorizeModern(req: IncomingMessage): Promise<boolean> {
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (!bearer) return false;
  try {
    const { payload } = await jwtVerify(bearer, keys, { issuer, audience: `${issuer}/mcp`, typ: 'at+jwt' });
    const [row] = await sql<{ disabled_at: Date | null }[]>`select u.disabled_at from users u where u.id = ${payload.sub!}`;
    return row !== undefined && row.disabled_at === null;
  } catch {
    return false;
  }
}

async function authorize(req: IncomingMessage): Promise<boolean> {
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (!bearer) return false;
  try {
    const { payload } = await jwtVerify(bearer, keys, { issuer, audience: `${issuer}/mcp`, typ: 'at+jwt' });
    const sessionId = String(req.headers['mcp-session-id'] ?? '');
    const [row] = await sql<{ disabled_at: Date | null; session: string | null }[]>`
      select u.disabled_at, s.id as session from users u
      left join mcp_sessions s on s.id = ${sessionId} and s.user_id = u.id and s.expires_at > now()
      where u.id = ${payload.sub!}`;
    return row !== undefined && row.disabled_at === null;
  } catch {
    return false;
  }
}

function answer(req: IncomingMessage, res: ServerResponse, body: unknown, shared: boolean): void {
  const mcp = server(shared);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => void mcp.close());
  void mcp.connect(transport).then(() => transport.handleRequest(req, res, body));
}

createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/__token') {
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end(token);
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString()) as unknown;
    if (req.url === '/mcp-bare') return answer(req, res, body, false);
    if (req.url === '/mcp-modern-bare') return void answerModern(req, res, body, modernBare);
    if (req.url === '/mcp-modern') {
      void authorizeModern(req).then((ok) => {
        if (!ok) {
          res.writeHead(401, { 'WWW-Authenticate': 'Bearer error="invalid_token"' }).end();
          return;
        }
        void answerModern(req, res, body, modernShared);
      });
      return;
    }
    void authorize(req).then((ok) => {
      if (!ok) {
        res.writeHead(401, { 'WWW-Authenticate': 'Bearer error="invalid_token"' }).end();
        return;
      }
      answer(req, res, body, true);
    });
  });
}).listen(port, '127.0.0.1', () => console.log(`baseline MCP server ready at ${issuer}`));

// Stopped by the runner with SIGTERM: exit through Node's own path, so that a --cpu-prof profile is written.
process.on('SIGTERM', () => process.exit(0));
