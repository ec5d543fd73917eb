// Portico's structured log: one JSON object per line on standard output (pino), for the operator's log pipeline.
// A request's lines carry its id, which its response also carries in X-Request-Id (lib/observability/http.ts).
//
// Nothing secret goes in: no query string, no header, no body, and the path with its secret segments replaced
// (`loggablePath`). Text that came from outside is a JSON string value here, so it cannot forge a line.
import pino, { type DestinationStream, type Logger } from 'pino';
import { env } from '../env';

let logger: Logger | undefined;
let destination: DestinationStream | undefined;

/** The process's logger (made on first use, at the level PORTICO_LOG_LEVEL sets), writing to standard output. */
export function log(): Logger {
  logger ??= pino(
    {
      level: env().PORTICO_LOG_LEVEL,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    // Synchronous: a line is out before the next request, and none is lost on a crash. A reader that went away
    // (EPIPE) pino handles itself: the lines are dropped.
    destination ?? pino.destination({ dest: 1, sync: true }),
  );
  return logger;
}

/**
 * A log reader that went away (a closed pipe) must not take the process with it, nor spin it: unhandled, a failed
 * write to standard output or error becomes an uncaught exception, which Next.js reports to standard error, which
 * fails the same way, and so on without end (seen: an orphaned server at two-thirds of a core after its reader died
 * and its database went). With this, those lines are lost and the requests are served.
 */
export function surviveClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  }
}

/** Where the log goes from now on (tests read the lines they cause). */
export function writeLogTo(stream: DestinationStream): void {
  destination = stream;
  logger = undefined;
}

/** Paths whose next segment is a bearer secret (a single-use link's token, an interaction's id). */
const SECRET_AFTER = ['/invite/', '/account/password/', '/account/verify/', '/auth/app/', '/oidc/auth/', '/oidc/interaction/', '/oidc/device/'];
/** Fixed paths under those prefixes: not secrets. */
const NOT_SECRET = new Set(['/oidc/device/auth']);
/** A segment that looks like a random token: long, and only URL-safe base64 characters (a UUID is an id, kept). */
const TOKEN_LIKE = /^[A-Za-z0-9_-]{32,}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A request's path as it may be logged: secret segments replaced by `:secret`, no query string. */
export function loggablePath(pathname: string): string {
  let path = pathname.length > 512 ? `${pathname.slice(0, 512)}…` : pathname;
  if (NOT_SECRET.has(path)) return path;
  for (const prefix of SECRET_AFTER) {
    if (path.startsWith(prefix) && path.length > prefix.length) {
      const rest = path.slice(prefix.length);
      const slash = rest.indexOf('/');
      path = `${prefix}:secret${slash === -1 ? '' : rest.slice(slash)}`;
      break;
    }
  }
  return path
    .split('/')
    .map((segment) => (TOKEN_LIKE.test(segment) && !UUID.test(segment) ? ':secret' : segment))
    .join('/');
}
