// The only module that reads process.env. Every variable is documented in .env.example.
// Parsing is strict and fails fast: a bad value stops Portico at start with a message that names the
// variable and says how to fix it, instead of a stack trace somewhere deep in a request.
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { isPostgresUrl } from './util/postgres-url';
import { isLoopbackHost } from './http/loopback-host';

export class EnvError extends Error {
  constructor(readonly problems: string[]) {
    super(`Portico cannot start: its configuration is invalid.\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'EnvError';
  }
}


const boolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const optionalText = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();

const port = z.coerce
  .number({ error: 'must be a port number' })
  .int('must be a whole number')
  .min(1, 'must be between 1 and 65535')
  .max(65535, 'must be between 1 and 65535');

/** A postgres:// URL with a host. */
function postgresUrl(otherwise: string) {
  // Several hosts are allowed (a failover pair with target_session_attrs, docs/deploy.md), which `new URL` refuses.
  return z.string().refine(isPostgresUrl, `must be a PostgreSQL URL such as postgres://user:password@127.0.0.1:5432/portico (${otherwise})`);
}

/** What node:dns takes as a server: an IP address, with a port as ip:port or [ipv6]:port. */
function isDnsServerAddress(server: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(server);
  if (bracketed) return isIP(bracketed[1]!) === 6 && (bracketed[2] === undefined || Number(bracketed[2]) <= 65535);
  if (isIP(server) !== 0) return true;
  const withPort = /^([^:]+):(\d{1,5})$/.exec(server);
  return withPort !== null && isIP(withPort[1]!) === 4 && Number(withPort[2]) <= 65535;
}

/** A comma-separated list of host patterns (`example.com`, `*.example.com`), lower-cased; empty: none. */
const hostPatterns = z
  .string()
  .trim()
  .default('')
  .transform((value) => (value === '' ? [] : value.split(',').map((pattern) => pattern.trim().toLowerCase()).filter(Boolean)))
  .refine((patterns) => patterns.every((pattern) => /^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(pattern)), 'must be host names, or *.domain for its subdomains, comma-separated');

/**
 * PORTICO_OUTBOUND_ALLOWED_NETWORKS: networks in CIDR form (`10.0.0.0/8`, `fd00::/8`), single addresses (`10.1.2.3`,
 * kept as `/32` or `/128`), and host names (`hooks.corp.example`, `*.corp.example`), comma-separated.
 */
const allowedNetworks = z
  .string()
  .trim()
  .default('')
  .transform((value, context) => {
    const networks: string[] = [];
    const hosts: string[] = [];
    for (const entry of value === '' ? [] : value.split(',').map((item) => item.trim().toLowerCase()).filter(Boolean)) {
      if (ipaddr.isValid(entry.replace(/^\[|\]$/g, ''))) {
        const address = ipaddr.parse(entry.replace(/^\[|\]$/g, ''));
        networks.push(`${address.toString()}/${address.kind() === 'ipv4' ? 32 : 128}`);
      } else if (entry.includes('/')) {
        try {
          const [base, bits] = ipaddr.parseCIDR(entry);
          networks.push(`${base.toString()}/${bits}`);
        } catch {
          context.addIssue({ code: 'custom', message: `"${entry}" is not a network in CIDR form (10.0.0.0/8, fd00::/8)` });
        }
      } else if (/^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(entry)) {
        hosts.push(entry);
      } else {
        context.addIssue({ code: 'custom', message: `"${entry}" is not a network (10.0.0.0/8), an address (10.1.2.3) or a host name (hooks.corp.example, *.corp.example)` });
      }
    }
    return { networks, hosts };
  });

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORTICO_ISSUER: z
    .string()
    .default('http://localhost:3000')
    .transform((value, ctx) => {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        ctx.addIssue({ code: 'custom', message: `"${value}" is not a URL; use an origin such as https://id.example.com` });
        return z.NEVER;
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') {
        ctx.addIssue({ code: 'custom', message: 'must be an http(s) URL' });
        return z.NEVER;
      }
      // OAuth 2.1 §1.5 / RFC 9700 §4.1: authorization servers are reached over TLS. Plain http is only
      // tolerated where traffic never leaves the machine.
      if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
        ctx.addIssue({
          code: 'custom',
          message: `"${value}" uses plain http on a non-loopback host; an identity provider must be served over TLS. Use an https:// issuer (terminate TLS in front of Portico and set PORTICO_TRUST_PROXY=true), or a loopback host such as http://localhost:3000 for local use`,
        });
        return z.NEVER;
      }
      if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
        ctx.addIssue({ code: 'custom', message: 'must be a bare origin without path, query or credentials, e.g. https://id.example.com' });
        return z.NEVER;
      }
      return url.origin;
    }),
  PORTICO_HOST: optionalText,
  // An empty value (`PORTICO_PORT=` in an env file) is unset.
  PORTICO_PORT: z.preprocess((value) => (value === '' ? undefined : value), port.optional()),
  // The port hosting platforms give a process (Heroku, Render, Cloud Run, …): listened on when PORTICO_PORT is unset.
  PORT: z.preprocess((value) => (value === '' ? undefined : value), port.optional()),
  PORTICO_TRUST_PROXY: boolean.default(false),
  DATABASE_URL: optionalText.pipe(postgresUrl('leave it unset to use the embedded database').optional()),
  // The connection that LISTENs for cache invalidations, when DATABASE_URL goes through a transaction-mode pooler
  // (which cannot hold a LISTEN): a direct or session-mode URL of the same database.
  DATABASE_LISTEN_URL: optionalText.pipe(postgresUrl('leave it unset to listen through DATABASE_URL').optional()),
  // Per-process caches of hot rows (clients, people, memberships), invalidated through PostgreSQL notifications.
  PORTICO_READ_CACHE: boolean.default(true),
  DATABASE_PREPARED_STATEMENTS: boolean.default(true),
  DATABASE_POOL_SIZE: z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be between 1 and 500').max(500, 'must be between 1 and 500').default(20),
  PORTICO_DATA_DIR: z.string().trim().min(1).default('./.data'),
  PORTICO_SECRET_KEY: optionalText.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9_-]{43}$/, 'must be 32 random bytes in base64url (43 characters); generate one with: node -e "console.log(require(\'crypto\').randomBytes(32).toString(\'base64url\'))"')
      .optional(),
  ),
  PORTICO_REFRESH_REUSE_GRACE_SECONDS: z.coerce
    .number({ error: 'must be a number of seconds' })
    .int('must be a whole number of seconds')
    .min(0, 'must be between 0 and 60')
    .max(60, 'must be between 0 and 60 (a longer window weakens refresh token reuse detection)')
    .default(5),
  PORTICO_POLL_INTERVAL_SECONDS: z.coerce
    .number({ error: 'must be a number of seconds' })
    .int('must be a whole number of seconds')
    .min(1, 'must be between 1 and 60')
    .max(60, 'must be between 1 and 60')
    .default(5),
  PORTICO_DCR_PER_IP_PER_HOUR: z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be between 1 and 100000').max(100_000, 'must be between 1 and 100000').default(20),
  PORTICO_DCR_GLOBAL_PER_HOUR: z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be between 1 and 10000000').max(10_000_000, 'must be between 1 and 10000000').default(1000),
  // Development and tests only: outbound fetches (metadata documents, surface verification) may reach loopback.
  PORTICO_OUTBOUND_ALLOW_LOOPBACK: boolean.default(false),
  // The earlier name of PORTICO_OUTBOUND_ALLOW_LOOPBACK, still read: either one set to true allows loopback.
  PORTICO_CIMD_ALLOW_LOOPBACK: boolean.default(false),
  // The company's own networks and hosts that deliveries may reach (webhooks, Shared Signals push, back-channel
  // logout, SSO discovery and keys, ID-JAG keys, app surface verification): CIDR networks, addresses and host names,
  // comma-separated. Loopback, link-local and cloud metadata addresses only when named one by one. Never used for
  // client ID metadata documents.
  PORTICO_OUTBOUND_ALLOWED_NETWORKS: allowedNetworks,
  // Client ID metadata documents: which hosts may serve one (empty: any host not blocked), and which may not. Host
  // patterns, comma-separated: `example.com` for that host, `*.example.com` for its subdomains.
  PORTICO_CIMD_ALLOWED_HOSTS: hostPatterns,
  PORTICO_CIMD_BLOCKED_HOSTS: hostPatterns,
  // The DNS servers that verify an organization's domains (TXT records), as IP addresses with an optional port
  // (192.0.2.53, 192.0.2.53:5353, [2001:db8::53]:53), comma-separated; empty: the system's resolvers.
  PORTICO_DNS_SERVERS: z
    .string()
    .trim()
    .default('')
    .refine((value) => value === '' || value.split(',').every((server) => isDnsServerAddress(server.trim())), 'must be DNS server IP addresses (with an optional :port), comma-separated')
    .transform((value) => (value === '' ? [] : value.split(',').map((server) => server.trim()))),
  // Operations: /metrics answers a request bearing this token (unset: /metrics is not served on Portico's port).
  PORTICO_METRICS_TOKEN: optionalText.pipe(z.string().min(32, 'must be at least 32 characters (a random secret your Prometheus sends as a bearer token)').optional()),
  // Operations: a second listener, on a loopback address only, serving /metrics without a token (host:port).
  PORTICO_METRICS_LISTEN: optionalText.pipe(
    z
      .string()
      .regex(/^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'must be host:port, e.g. 127.0.0.1:9464')
      .refine((value) => isLoopbackHost(value.slice(0, value.lastIndexOf(':')).replace(/^\[|\]$/g, '')), 'must be a loopback address (127.0.0.1:9464, [::1]:9464): nothing off this machine may read the metrics without a token')
      .refine((value) => Number(value.slice(value.lastIndexOf(':') + 1)) <= 65_535, 'the port must be at most 65535')
      .optional(),
  ),
  // The folder audit events older than their organization's retention move to (lib/audit/archive.ts). Unset:
  // nothing is archived by the server (`audit archive --to <folder>` still can be run by hand).
  PORTICO_AUDIT_ARCHIVE_DIR: optionalText,
  // Operations: the least severe log lines written (JSON lines on standard output).
  PORTICO_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { error: 'must be one of fatal, error, warn, info, debug, trace, silent' }).default('info'),
  PORTICO_DEMO_SEED: boolean.default(true),
  PORTICO_DEMO_EMAIL: optionalText.pipe(z.email('must be an email address').optional()),
  PORTICO_DEMO_PASSWORD: optionalText.pipe(z.string().min(12, 'must be at least 12 characters').optional()),
  PORTICO_DEMO_CLIENT_ID: optionalText.pipe(
    z.string().regex(/^[A-Za-z0-9._~-]{8,128}$/, 'must be 8-128 URL-safe characters').optional(),
  ),
  PORTICO_DEMO_CLIENT_SECRET: optionalText.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  PORTICO_DEMO_REDIRECT_URI: optionalText.pipe(
    z
      .string()
      .refine((value) => {
        try {
          const url = new URL(value);
          return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
        } catch {
          return false;
        }
      }, 'must be an https URL, or http on a loopback host')
      .optional(),
  ),
  // Mail (invitations, password resets, notices). Unset: the development outbox in the data folder.
  PORTICO_SMTP_URL: optionalText.pipe(
    z
      .string()
      .refine((value) => {
        try {
          const url = new URL(value);
          return (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname !== '';
        } catch {
          return false;
        }
      }, 'must be an SMTP URL such as smtps://user:password@smtp.example.com:465 or smtp://127.0.0.1:25 (leave it unset for the development outbox)')
      .optional(),
  ),
  PORTICO_MAIL_FROM: optionalText.pipe(
    z
      .string()
      .max(320)
      .regex(/^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/, 'must be an address such as portico@example.com or "Portico <portico@example.com>"')
      .optional(),
  ),
  // Who may create an organization: `anyone` signed in to the console (and becomes its owner), or `cli` (only the
  // installation's operators, with the CLI on the server machine).
  // Server processes (node:cluster) sharing the port: a number, or `auto` for the cores this machine offers. More
  // than one needs PostgreSQL (the embedded database belongs to one process).
  PORTICO_WORKERS: z
    .string()
    .trim()
    .default('1')
    .refine((value) => value === 'auto' || /^[1-9][0-9]{0,2}$/.test(value), 'must be a whole number from 1 to 999, or auto'),
  PORTICO_HEAP_MB: z.coerce.number({ error: 'must be a number of megabytes' }).int('must be a whole number').min(96, 'must be at least 96').max(65536, 'must be at most 65536').default(256),
  PORTICO_ORG_CREATION: z.enum(['anyone', 'cli'], { error: 'must be anyone or cli' }).default('anyone'),
  PORTICO_INVITATION_DAYS: z.coerce.number({ error: 'must be a number of days' }).int('must be a whole number of days').min(1, 'must be between 1 and 30').max(30, 'must be between 1 and 30').default(7),
  // Operator overrides of MCP tool risk levels: `tool=level` pairs separated by commas. They may only raise a level.
  PORTICO_RISK_OVERRIDES: z.string().trim().max(4000).default(''),
  // Who confirms an approval_required tool call: `human` (the token's person, in Portico, with step-up) or `in_band`
  // (the caller relays the token itself: weaker, for hosts that show the challenge to their user and nothing else).
  PORTICO_CONFIRMATION_MODE: z.enum(['human', 'in_band'], { error: 'must be human or in_band' }).default('human'),
  // How an approval reaches its operator: `link` (an HTTPS link to the central, opened in a tab of its own) or
  // `adaptive` (inside the chat client, chosen from what the MCP connection advertises; see docs/approval-surfaces.md).
  PORTICO_APPROVAL_SURFACE: z.enum(['link', 'adaptive'], { error: 'must be link or adaptive' }).default('link'),
  // The operator central (/central, and /embedded-central when framing is allowed). Off: every request goes to the CLI.
  PORTICO_CENTRAL_ENABLED: boolean.default(true),
  // The only origins that may frame the embedded central: https origins, exactly, separated by spaces or commas.
  PORTICO_OPERATOR_FRAME_ANCESTORS: z
    .string()
    .trim()
    .default('')
    .transform((value, ctx) => {
      const origins = value.split(/[\s,]+/).filter((item) => item !== '');
      for (const origin of origins) {
        let url: URL | undefined;
        try {
          url = new URL(origin);
        } catch {
          url = undefined;
        }
        // https only and no wildcard: a listed origin is trusted to frame the decision page, so each must be exact.
        if (!url || url.protocol !== 'https:' || url.origin !== origin || origin.includes('*')) {
          ctx.addIssue({ code: 'custom', message: `"${origin}" is not an https origin (scheme, host and optional port; no path, no wildcard)` });
          return z.NEVER;
        }
      }
      return [...new Set(origins)];
    }),
  // Where `npm run example` serves the example app; the demo seed registers it at this origin.
  PORTICO_EXAMPLE_ORIGIN: z
    .string()
    .trim()
    .default('http://127.0.0.1:3100')
    .refine((value) => {
      try {
        const url = new URL(value);
        return url.origin === value && (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname)));
      } catch {
        return false;
      }
    }, 'must be an origin (no path): https, or http on a loopback host'),
  // Tests only: the Chromium that Playwright drives: Debian's chromium-headless-shell, the same Chromium's headless
  // build, which Playwright itself drives for headless runs (browsers are never downloaded). The full browser in its
  // headless mode cost its browser process about six times the CPU for each page opened and three times for each
  // screenshot (docs/architecture.md#testing).
  CHROMIUM_PATH: z.string().trim().min(1).default('/usr/bin/chromium-headless-shell'),
  // Tests only: which shared end-to-end server (lane) a process serves (e2e/support/constants.ts); set by
  // playwright.config.ts for each server it starts.
  PORTICO_E2E_LANE: z.coerce.number().int().min(0).max(9).optional(),
  // Set by Playwright in each of its worker processes: the worker's slot, which picks the lane's server.
  TEST_PARALLEL_INDEX: z.coerce.number().int().min(0).optional(),
  // Tests only: a transaction-mode pooler in front of DATABASE_URL's server (.ci/run starts PgBouncer). `npm test` then
  // runs the unit suite through it, as docs/deploy.md tells operators to run behind one (nothing prepared, LISTEN
  // past the pooler on DATABASE_URL), and the end-to-end suite on DATABASE_URL directly.
  TEST_POOLER_URL: optionalText.pipe(postgresUrl('leave it unset to run the unit suite on DATABASE_URL directly').optional()),
});

export type Env = Omit<z.infer<typeof schema>, 'PORTICO_DEMO_REDIRECT_URI' | 'PORTICO_MAIL_FROM'> & {
  /** Default: Portico <no-reply@<issuer host>>. */
  PORTICO_MAIL_FROM: string;
  /** Default: Portico's own stand-in page for the demo app, `<issuer>/demo/callback`. */
  PORTICO_DEMO_REDIRECT_URI: string;
  /** Absolute path of the data folder. */
  dataDir: string;
  /** Absolute path of the audit archive folder (PORTICO_AUDIT_ARCHIVE_DIR), when set. */
  auditArchiveDir: string | undefined;
  /** Addresses the HTTP server listens on (both loopback families for a `localhost` issuer). */
  listenHosts: string[];
  listenPort: number;
  issuerIsHttps: boolean;
  /** PORTICO_OUTBOUND_ALLOW_LOOPBACK or its alias PORTICO_CIMD_ALLOW_LOOPBACK. */
  outboundAllowLoopback: boolean;
  /** PORTICO_OUTBOUND_ALLOWED_NETWORKS: what deliveries may reach besides the public internet. */
  outboundAllowedNetworks: { networks: string[]; hosts: string[] };
  /** How many server processes to run (PORTICO_WORKERS, `auto` resolved to the available cores). */
  workers: number;
};

/** Parses a set of variables. Pure: tests pass their own object. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = schema.safeParse(source);
  if (!result.success) {
    throw new EnvError(
      result.error.issues.map((issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`),
    );
  }
  const parsed = result.data;
  if (parsed.PORTICO_WORKERS !== '1' && !parsed.DATABASE_URL) {
    throw new EnvError([
      `PORTICO_WORKERS: ${parsed.PORTICO_WORKERS} needs PostgreSQL (set DATABASE_URL): the embedded database belongs to one server process. Unset PORTICO_WORKERS, or set it to 1.`,
    ]);
  }
  const issuer = new URL(parsed.PORTICO_ISSUER);
  const loopback = isLoopbackHost(issuer.hostname);
  const issuerPort = issuer.port ? Number(issuer.port) : undefined;
  return {
    ...parsed,
    PORTICO_DEMO_REDIRECT_URI: parsed.PORTICO_DEMO_REDIRECT_URI ?? `${parsed.PORTICO_ISSUER}${DEMO_CALLBACK_PATH}`,
    PORTICO_MAIL_FROM: parsed.PORTICO_MAIL_FROM ?? `Portico <no-reply@${issuer.hostname.replace(/^\[|\]$/g, '')}>`,
    dataDir: path.resolve(parsed.PORTICO_DATA_DIR),
    auditArchiveDir: parsed.PORTICO_AUDIT_ARCHIVE_DIR ? path.resolve(parsed.PORTICO_AUDIT_ARCHIVE_DIR) : undefined,
    // A loopback issuer is a local run: listen on loopback only, on the issuer's own port, so that the
    // demo (with its printed password) is not exposed to the network by default. Browsers may resolve
    // `localhost` to ::1 or to 127.0.0.1, so both are served.
    listenHosts: parsed.PORTICO_HOST
      ? [parsed.PORTICO_HOST]
      : loopback
        ? issuer.hostname === 'localhost'
          ? ['127.0.0.1', '::1']
          : [issuer.hostname.replace(/^\[|\]$/g, '')]
        : ['0.0.0.0'],
    // PORTICO_PORT wins. A loopback issuer's own port comes next (a local run: a PORT left in a developer's shell must
    // not move Portico away from its issuer); then a platform's PORT; then 3000.
    listenPort: parsed.PORTICO_PORT ?? (loopback && issuerPort ? issuerPort : (parsed.PORT ?? 3000)),
    issuerIsHttps: issuer.protocol === 'https:',
    outboundAllowLoopback: parsed.PORTICO_OUTBOUND_ALLOW_LOOPBACK || parsed.PORTICO_CIMD_ALLOW_LOOPBACK,
    outboundAllowedNetworks: parsed.PORTICO_OUTBOUND_ALLOWED_NETWORKS,
    workers: parsed.PORTICO_WORKERS === 'auto' ? availableParallelism() : Number(parsed.PORTICO_WORKERS),
  };
}

/** Where the demo app's stand-in callback page lives (app/demo/callback). */
export const DEMO_CALLBACK_PATH = '/demo/callback';

let cached: Env | undefined;

/** The process's configuration, parsed once. */
export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** For entry points: parse the environment or print the problems and exit non-zero, without a stack trace. */
export function envOrExit(): Env {
  try {
    return env();
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

/** V8 flags that limit the server's heap (set by `npm start` through NODE_OPTIONS from PORTICO_HEAP_MB). */
const HEAP_FLAG = /^--max-(old|semi)-space-size=/;

/** For the `next build` that `npm start` may run first: NODE_OPTIONS without the server's heap limits (a build needs more). */
export function buildEnvironment(): NodeJS.ProcessEnv {
  const options = (process.env.NODE_OPTIONS ?? '').split(/\s+/).filter((flag) => flag !== '' && !HEAP_FLAG.test(flag)).join(' ');
  return childProcessEnvironment({ NODE_OPTIONS: options === '' ? undefined : options });
}

/** The environment for a child process (tests, tools): this process's variables with some replaced or removed. */
export function childProcessEnvironment(overrides: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const next: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete next[name];
    else next[name] = value;
  }
  return next;
}
