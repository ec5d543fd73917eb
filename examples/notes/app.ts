// Notes, the example published app: built only on Portico's app kit. People sign in through Portico (OpenID
// Connect with openid-client, PKCE, state and nonce); MCP clients reach its `/api/mcp` with Portico access tokens
// whose audience is this app; its tools carry risk levels, and the one that destroys asks for confirmation. At
// start it declares its surface to Portico, and it answers Portico's signed introspection. When Portico ends a
// person's session (they signed out, were removed, reset their password, …) it sends a back-channel logout token
// to /backchannel-logout: the app ends its own sessions of that person, and an open tab notices within seconds.
// Given a Shared Signals push stream to /security-events, a person or agent Portico disabled has the tokens it
// still holds refused at once (RISC account-disabled), not only when they expire.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createAppKit, createLogoutReceiver, createSecurityEventReceiver, createSignIn, RISC_ACCOUNT_DISABLED, RISC_ACCOUNT_PURGED, type SecurityEvent, SURFACE_PATH, type KitTool, type PendingSignIn, type BackchannelLogout, type SignedInPerson, type SurfaceDocument, type ToolEvent, type VerifiedAccessToken } from '../../app-kit';
import { sendWebResponse, toWebRequest } from '../../app-kit/node-http';
import { Notebook, notebookTools } from './tools';

export interface ExampleAppConfig {
  /** Where the app listens and is published: `http://127.0.0.1:3100`. */
  origin: string;
  issuer: string;
  appIdentity: string;
  clientId?: string;
  clientSecret?: string;
  surfaceSecret?: string;
  name?: string;
  /** Declare the surface to Portico at start (default: when the client id and the surface secret are known). */
  declareOnStart?: boolean;
  /** Serve the signed introspection route (default true). */
  introspection?: boolean;
  /** More tools, beyond the notebook's (tests add an undeclared one). */
  extraTools?: (notebook: Notebook) => KitTool<never>[];
  riskOverrides?: Record<string, string>;
  /**
   * Who confirms notes.delete: `portico` (the person, in Portico, with step-up; needs the client id and the surface
   * secret) or `in_band` (the caller relays the token). Default: portico when the surface secret is known.
   */
  confirmations?: 'portico' | 'in_band';
  log?: (line: string) => void;
}

export interface ExampleApp {
  origin: string;
  resource: string;
  notebook: Notebook;
  /** Every access token the app accepted, in order. */
  accepted: VerifiedAccessToken[];
  /** What the app audited: every call from `caution` up. */
  events: ToolEvent[];
  /** Every back-channel logout the app accepted, in order. */
  logouts: BackchannelLogout[];
  /** Every Shared Signals event the app accepted at /security-events, in order. */
  securityEvents: SecurityEvent[];
  /** The app's whole surface, as the kit reports it. */
  surface(): SurfaceDocument;
  /** The outcome of the declaration at start, when one was made. */
  declaration?: { ok: true; tools: number } | { ok: false; error: string };
  close(): Promise<void>;
}

const SESSION_COOKIE = 'notes_session';
const PENDING_COOKIE = 'notes_sign_in';
const SESSION_SECONDS = 8 * 3600;

export async function startExampleApp(config: ExampleAppConfig): Promise<ExampleApp> {
  const origin = new URL(config.origin).origin;
  const secure = origin.startsWith('https:');
  const log = config.log ?? (() => {});
  const notebook = new Notebook();
  const accepted: VerifiedAccessToken[] = [];
  const events: ToolEvent[] = [];
  const logouts: BackchannelLogout[] = [];
  const securityEventsReceived: SecurityEvent[] = [];
  const name = config.name ?? 'Notes';
  const kit = createAppKit({
    issuer: config.issuer,
    appIdentity: config.appIdentity,
    origin,
    clientId: config.clientId,
    surfaceSecret: config.surfaceSecret,
    resourceName: name,
    server: { name: 'notes-example', version: '1.0.0' },
    tools: [...notebookTools(notebook), ...(config.extraTools?.(notebook) ?? [])],
    riskOverrides: config.riskOverrides,
    confirmations: config.confirmations ?? (config.clientId && config.surfaceSecret ? 'portico' : 'in_band'),
    introspection: config.introspection,
    onToolEvent: (event) => {
      events.push(event);
      log(`audit ${JSON.stringify(event)}`);
    },
  });
  const signIn =
    config.clientId && config.clientSecret ? createSignIn({ issuer: config.issuer, clientId: config.clientId, clientSecret: config.clientSecret, redirectUri: `${origin}/callback` }) : undefined;
  // Sessions and pending sign-ins live in this process: enough for an example, not for several instances.
  const pendingSignIns = new Map<string, PendingSignIn & { expiresAt: number }>();
  const sessions = new Map<string, SignedInPerson & { expiresAt: number }>();
  // Back-channel logout (registered for the app in Portico: console → the app → Back-channel logout, or
  // `portico apps backchannel-logout set`): a token naming Portico's session (`sid`) ends the sessions opened with
  // it; one naming only the person (`sub`) ends all of theirs.
  const endSessions = (logout: BackchannelLogout) => {
    logouts.push(logout);
    let ended = 0;
    for (const [id, session] of sessions) {
      const sameSession = logout.sid !== undefined && session.claims.sid === logout.sid;
      const samePerson = logout.sub !== undefined && session.subject === logout.sub;
      if (logout.sid !== undefined ? sameSession && (logout.sub === undefined || samePerson) : samePerson) {
        sessions.delete(id);
        ended += 1;
      }
    }
    log(`back-channel logout ${JSON.stringify(logout)}: ${ended} session(s) ended`);
  };
  const logoutReceiver = config.clientId ? createLogoutReceiver({ issuer: config.issuer, clientId: config.clientId, endSessions }) : undefined;
  // Shared Signals (a push stream the app creates in Portico, RFC 8935, endpoint /security-events): sessions end as
  // for a logout, and a person or agent Portico disabled has every token issued before the event refused at once
  // (the kit's refuseTokensOf), instead of until it expires.
  const securityEvents = config.clientId
    ? createSecurityEventReceiver({
        issuer: config.issuer,
        clientId: config.clientId,
        endSessions,
        async onEvent(event) {
          securityEventsReceived.push(event);
          if ((event.type === RISC_ACCOUNT_DISABLED || event.type === RISC_ACCOUNT_PURGED) && event.sub) {
            const stamp = typeof event.event.event_timestamp === 'number' ? new Date(event.event.event_timestamp * 1000) : undefined;
            await kit.refuseTokensOf(event.sub, stamp);
            log(`security event ${event.type}: tokens of ${JSON.stringify(event.sub)} issued before it are refused`);
          }
        },
      })
    : undefined;

  const cookie = (nameValue: string, attributes: string) => `${nameValue}; HttpOnly; SameSite=Lax; ${attributes}${secure ? '; Secure' : ''}`;

  async function route(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname;
    if (request.method === 'GET' && kit.metadataPaths.includes(path)) return kit.protectedResourceMetadata();
    if (path === '/api/mcp') return kit.handleMcp(request, (token) => accepted.push(token));
    if (path === SURFACE_PATH) return kit.handleSurfaceRequest(request);

    const cookies = parseCookies(request.headers.get('cookie'));
    const session = sessionOf(cookies[SESSION_COOKIE]);
    if (path === '/' && request.method === 'GET') return page(name, homeBody(name, session, Boolean(signIn), kit.surface().tools));
    if (path === '/backchannel-logout' && logoutReceiver) return logoutReceiver.handle(request);
    if (path === '/security-events' && securityEvents) return securityEvents.handle(request);
    // The open tab asks every few seconds whether its session still exists (session-check.js), and reloads when not.
    if (path === '/session' && request.method === 'GET') return Response.json({ signedIn: session !== undefined }, { headers: { 'Cache-Control': 'no-store' } });
    if (path === '/session-check.js' && request.method === 'GET') return new Response(SESSION_CHECK_SCRIPT, { headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-store' } });
    if (path === '/login' && request.method === 'GET') {
      if (!signIn) return page(name, '<p>Sign-in is not configured: the app has no PORTICO_CLIENT_ID and PORTICO_CLIENT_SECRET.</p>', 503);
      const { url: authorizationUrl, pending } = await signIn.start();
      const id = randomBytes(24).toString('base64url');
      forgetExpired(pendingSignIns);
      // Anyone can start a sign-in: bounded, oldest first, so that nobody can fill the app's memory.
      while (pendingSignIns.size >= MAX_PENDING) pendingSignIns.delete(pendingSignIns.keys().next().value!);
      pendingSignIns.set(id, { ...pending, expiresAt: Date.now() + 600_000 });
      return new Response(null, { status: 302, headers: { Location: authorizationUrl.href, 'Set-Cookie': cookie(`${PENDING_COOKIE}=${id}`, 'Path=/callback; Max-Age=600') } });
    }
    if (path === '/callback' && request.method === 'GET') {
      const id = cookies[PENDING_COOKIE];
      const pending = id ? pendingSignIns.get(id) : undefined;
      if (id) pendingSignIns.delete(id);
      if (!signIn || !pending || pending.expiresAt < Date.now()) return page(name, '<p>This sign-in expired or was not started here. <a href="/login">Sign in again</a>.</p>', 400);
      let person: SignedInPerson;
      try {
        person = await signIn.finish(url, pending);
      } catch (error) {
        log(`sign-in failed: ${error instanceof Error ? error.message : String(error)}`);
        return page(name, `<p>Sign-in did not complete: ${escapeHtml(url.searchParams.get('error_description') ?? url.searchParams.get('error') ?? 'the answer from Portico was not valid')}. <a href="/login">Try again</a>.</p>`, 400);
      }
      const sessionId = randomBytes(32).toString('base64url');
      forgetExpired(sessions);
      sessions.set(sessionId, { ...person, expiresAt: Date.now() + SESSION_SECONDS * 1000 });
      const headers = new Headers({ Location: '/' });
      headers.append('Set-Cookie', cookie(`${SESSION_COOKIE}=${sessionId}`, `Path=/; Max-Age=${SESSION_SECONDS}`));
      headers.append('Set-Cookie', cookie(`${PENDING_COOKIE}=`, 'Path=/callback; Max-Age=0'));
      return new Response(null, { status: 303, headers });
    }
    if (path === '/logout' && request.method === 'POST') {
      // A cross-site form cannot sign people out: the browser's Origin must be ours.
      if (request.headers.get('origin') !== origin) return page(name, '<p>Sign-out must come from this app’s own page.</p>', 403);
      if (cookies[SESSION_COOKIE]) sessions.delete(cookies[SESSION_COOKIE]);
      return new Response(null, { status: 303, headers: { Location: '/', 'Set-Cookie': cookie(`${SESSION_COOKIE}=`, 'Path=/; Max-Age=0') } });
    }
    return page(name, '<p>Not found.</p>', 404);
  }

  function sessionOf(id: string | undefined) {
    const session = id ? sessions.get(id) : undefined;
    if (!session) return undefined;
    if (session.expiresAt < Date.now()) {
      sessions.delete(id!);
      return undefined;
    }
    return session;
  }

  const server: Server = createServer((req, res) => {
    void toWebRequest(req, origin)
      .then(route)
      .catch((error: unknown) => {
        log(`request failed: ${error instanceof Error ? error.message : String(error)}`);
        return error instanceof RangeError ? new Response('Request body too large', { status: 413 }) : new Response('Internal error', { status: 500 });
      })
      .then((response) => sendWebResponse(res, response))
      .catch(() => res.destroy());
  });
  const listenOn = new URL(origin);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(listenOn.port || (secure ? 443 : 80)), listenOn.hostname.replace(/^\[|\]$/g, ''), resolve);
  });

  let declaration: ExampleApp['declaration'];
  if (config.declareOnStart ?? Boolean(config.clientId && config.surfaceSecret)) {
    try {
      const declared = await kit.declareSurface();
      declaration = { ok: true, tools: declared.tools };
      log(`declared ${declared.tools} tool(s) to Portico`);
    } catch (error) {
      declaration = { ok: false, error: error instanceof Error ? error.message : String(error) };
      log(`could not declare the surface: ${declaration.error}`);
    }
  }

  return {
    origin,
    resource: kit.resource,
    notebook,
    accepted,
    events,
    logouts,
    securityEvents: securityEventsReceived,
    surface: () => kit.surface(),
    declaration,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const MAX_PENDING = 1000;

const SESSION_CHECK_SCRIPT = `setInterval(async () => {
  try {
    const answer = await fetch('/session', { cache: 'no-store' });
    if (answer.ok && !(await answer.json()).signedIn) location.reload();
  } catch {}
}, 2000);
`;

function forgetExpired(entries: Map<string, { expiresAt: number }>): void {
  const now = Date.now();
  for (const [key, entry] of entries) if (entry.expiresAt < now) entries.delete(key);
}

function parseCookies(header: string | null): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index > 0) cookies[part.slice(0, index).trim()] = part.slice(index + 1).trim();
  }
  return cookies;
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function homeBody(name: string, session: SignedInPerson | undefined, canSignIn: boolean, tools: { name: string; riskLevel: string; requiredScopes: string[] }[]): string {
  const who = session
    ? `<p data-testid="signed-in">Signed in as <strong>${escapeHtml(session.name ?? session.subject)}</strong>${session.email ? ` (${escapeHtml(session.email)})` : ''}.</p>
       <form method="post" action="/logout"><button type="submit">Sign out</button></form><script src="/session-check.js"></script>`
    : canSignIn
      ? '<p><a class="button" href="/login">Sign in with Portico</a></p>'
      : '<p>Sign-in is not configured.</p>';
  const rows = tools.map((tool) => `<tr><td><code>${escapeHtml(tool.name)}</code></td><td>${tool.riskLevel}</td><td>${escapeHtml(tool.requiredScopes.join(' '))}</td></tr>`).join('');
  return `<h1>${escapeHtml(name)}</h1>${who}
    <h2>MCP</h2><p>Connect an MCP client to <code>/api/mcp</code>; it signs in through Portico.</p>
    <table><thead><tr><th>Tool</th><th>Risk level</th><th>Scopes</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function page(title: string, body: string, status = 200): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:3rem auto;padding:0 1rem;color:#1e293b}a.button,button{display:inline-block;background:#3b4bd8;color:#fff;border:0;border-radius:6px;padding:.5rem 1rem;text-decoration:none;font:inherit;cursor:pointer}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #e2e8f0;padding:.4rem;text-align:left}</style></head><body>${body}</body></html>`;
  return new Response(html, {
    status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'same-origin',
      'Cache-Control': 'no-store',
    },
  });
}
