// The running server's control socket (<data folder>/portico.sock): the CLI sends its command here when a server holds
// the folder — the embedded database admits one process — and the command runs inside the server with the same
// authority it has on the command line (local authority of whoever runs the server; audited as operator_cli). The
// protocol and the peer's proof of its uid: ./control-protocol.ts.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, lstat, readFile, rm } from 'node:fs/promises';
import { createConnection, createServer, type Socket } from 'node:net';
import { hostname, userInfo } from 'node:os';
import { terminalText } from '../util/visible-text';
import type { CliContext } from './command';
import { controlSocketPath, jsonLines, MAX_ARGV, MAX_SECRET_ERROR, proofFilePath, type ServerMessage } from './control-protocol';
import { runCli } from './index';

/** Beyond this a path does not fit in a Unix socket address (sun_path is 108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100;
const MAX_CONNECTIONS = 8;
/** A command that waits this long (a question nobody answers) is ended. */
const IDLE_MS = 10 * 60_000;
/** A connection that has not asked and proved who it is by then is ended (it holds one of the few slots). */
const PROOF_MS = 10_000;
/** Messages waiting to be read; a peer sending more than a command needs is cut off. */
const MAX_QUEUED = 4;

export interface ControlSocketOptions {
  dataDir: string;
  /** What a command runs with in this server (its terminal — output and questions — is the connection's). */
  context: () => Omit<CliContext, 'out' | 'confirm' | 'operator'>;
  /** After each command: the server sends the mail it queued (an invitation, say) at once. */
  afterCommand?: () => void;
  log?: (line: string) => void;
}

export interface ControlSocket {
  path: string;
  close(): Promise<void>;
}

/** True when something accepts connections on that socket (another server on the same folder). */
function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createConnection(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

/** Why a proof is refused, or nothing when the file says the peer runs as this server's user. */
async function proofRefusal(dataDir: string, nonce: string): Promise<string | undefined> {
  const file = proofFilePath(dataDir, nonce);
  try {
    const stats = await lstat(file);
    const ownUid = process.getuid!();
    if (!stats.isFile() || stats.nlink !== 1 || (stats.mode & 0o077) !== 0 || stats.size > 256) return 'the proof file is not a private regular file of its own';
    if (stats.uid !== ownUid) return `the CLI runs as uid ${stats.uid}, this server as uid ${ownUid}: run it as the user who runs Portico`;
    if ((await readFile(file, 'utf8')) !== nonce) return 'the proof file does not hold this connection’s value';
    return undefined;
  } catch {
    return 'no proof file: the CLI must run as the user who runs Portico, with access to its data folder';
  } finally {
    await rm(file, { force: true }).catch(() => {});
  }
}

/**
 * Listens on the data folder's control socket; nothing (with a line in the log) where it cannot: no Unix sockets on
 * this system, a path too long for one, or another live server on the same folder.
 */
export async function startControlSocket(options: ControlSocketOptions): Promise<ControlSocket | undefined> {
  const log = options.log ?? ((line: string) => console.warn(line));
  const socketPath = controlSocketPath(options.dataDir);
  if (typeof process.getuid !== 'function') return undefined;
  if (socketPath.length > MAX_SOCKET_PATH) {
    log(`No CLI control socket: ${socketPath} is too long for a Unix socket. Use a shorter PORTICO_DATA_DIR to run CLI commands while Portico runs.`);
    return undefined;
  }
  if (existsSync(socketPath)) {
    if (await answers(socketPath)) {
      log(`No CLI control socket: another Portico already answers on ${socketPath}.`);
      return undefined;
    }
    await rm(socketPath, { force: true }); // left by a server that died
  }
  const operator = `cli:${userInfo().username}@${hostname()}`;
  const open = new Set<Socket>();
  const server = createServer((socket) => {
    // A peer that went away must never crash the server (EPIPE, ECONNRESET).
    socket.on('error', () => {});
    if (open.size >= MAX_CONNECTIONS) {
      socket.end(`${JSON.stringify({ type: 'refused', message: 'Too many CLI commands at once: try again in a moment.' } satisfies ServerMessage)}\n`, () => socket.destroy());
      return;
    }
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    void serveCommand(socket, options, operator).catch((error: unknown) => {
      log(`A CLI command through the control socket failed: ${terminalText(error instanceof Error ? error.message : String(error))}`);
      socket.destroy();
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // Created owner-only: the umask (process-wide) only around the bind, which listen() makes synchronously.
      const previousUmask = process.umask(0o177);
      try {
        server.listen(socketPath, () => {
          server.off('error', reject);
          resolve();
        });
      } finally {
        process.umask(previousUmask);
      }
    });
    await chmod(socketPath, 0o600);
  } catch (error) {
    log(`No CLI control socket on ${socketPath}: ${error instanceof Error ? error.message : String(error)}`);
    server.close();
    return undefined;
  }
  // Later failures (out of file descriptors on accept) are logged; they must not end the identity provider.
  server.on('error', (error) => log(`CLI control socket: ${error.message}`));
  return {
    path: socketPath,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of open) socket.destroy();
      }),
  };
}

async function serveCommand(socket: Socket, options: ControlSocketOptions, operator: string): Promise<void> {
  const send = (message: ServerMessage) => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
  };
  const refuse = (message: string) => {
    send({ type: 'refused', message });
    socket.end();
  };
  socket.setTimeout(PROOF_MS, () => socket.destroy());
  const nonce = randomBytes(18).toString('base64url');
  const inbox: unknown[] = [];
  let waiting: ((message: unknown) => void) | undefined;
  let closed = false;
  const next = () =>
    new Promise<unknown>((resolve) => {
      const queued = inbox.shift();
      if (queued !== undefined) resolve(queued);
      else if (closed) resolve(undefined);
      else waiting = resolve;
    });
  const deliver = (message: unknown) => {
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      resolve(message);
    } else if (inbox.length >= MAX_QUEUED) socket.destroy();
    else inbox.push(message);
  };
  socket.on('data', jsonLines(deliver, () => socket.destroy()));
  socket.once('close', () => {
    closed = true;
    waiting?.(undefined);
  });

  send({ type: 'hello', nonce });
  const run = (await next()) as { type?: unknown; argv?: unknown; interactive?: unknown } | undefined;
  if (!run || run.type !== 'run' || !Array.isArray(run.argv) || run.argv.length > MAX_ARGV || !run.argv.every((word) => typeof word === 'string' && word.length <= 4096)) {
    refuse('Not a CLI command.');
    return;
  }
  const refusal = await proofRefusal(options.dataDir, nonce);
  if (refusal) {
    refuse(`Refused: ${refusal}.`);
    return;
  }
  socket.setTimeout(IDLE_MS, () => socket.destroy());
  const interactive = run.interactive === true;
  let code: number;
  try {
    code = await runCli(
      run.argv as string[],
      {
        ...options.context(),
        operator,
        out: (line) => send({ type: 'out', line }),
        async confirm(question) {
          if (!interactive) return false;
          send({ type: 'confirm', question });
          const answer = (await next()) as { type?: unknown; yes?: unknown } | undefined;
          return answer?.type === 'answer' && answer.yes === true;
        },
        // The secret is the CLI's to read (its stdin, its environment, a file on its side), never this server's.
        async readSecret(source) {
          send({ type: 'secret', source });
          const answer = (await next()) as { type?: unknown; value?: unknown; error?: unknown } | undefined;
          if (answer?.type === 'secret' && typeof answer.error === 'string' && answer.error !== '') throw new Error(answer.error.slice(0, MAX_SECRET_ERROR));
          return answer?.type === 'secret' && typeof answer.value === 'string' && answer.value !== '' ? answer.value : undefined;
        },
      },
      (line) => send({ type: 'err', line }),
    );
  } catch (error) {
    // Never the stack to the terminal; the server's log has the message.
    send({ type: 'err', line: 'The command failed inside the running Portico (its log says why). Nothing was changed by the part that failed.' });
    (options.log ?? console.warn)(`CLI command failed in the server: ${terminalText(error instanceof Error ? error.message : String(error))}`);
    code = 1;
  }
  options.afterCommand?.();
  send({ type: 'exit', code });
  socket.end();
}
