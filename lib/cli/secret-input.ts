// A secret the operator hands the CLI (an upstream's API key, a workload's token) without writing it on the command
// line, where shell history and `ps` would keep it: read from the CLI's standard input — typed without echo at a
// terminal, or piped in — or from one of the CLI's environment variables, named on the command line. A file the
// operator names (a public key, a key set, a token) is read the same way. Always read on the operator's side: a
// command that runs inside the server (./control-socket.ts) asks the CLI for it over the control socket, so a path is
// the operator's, relative to their folder. Light (no database, no domain module), like the rest of what the CLI
// loads before it knows where the command runs.
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';

/**
 * Where the value comes from: standard input (with the words to ask for it at a terminal; `whole`: read to the end
 * of input there too, shown as typed — a PEM block, which is no secret and spans lines), a variable, or a file.
 */
export type SecretSource = { from: 'stdin'; prompt: string; whole?: boolean } | { from: 'env'; name: string } | { from: 'file'; path: string };

/** An environment variable's name as a shell writes it. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** More than any credential a header carries: piped input beyond this is refused, not read on. */
export const MAX_SECRET_CHARS = 16 * 1024;
/** More than any public key, key set or token a command takes from a file (and it fits a control-socket line). */
export const MAX_FILE_CHARS = 32 * 1024;
const MAX_PATH_CHARS = 4096;

export function isSecretSource(value: unknown): value is SecretSource {
  const source = value as { from?: unknown; prompt?: unknown; name?: unknown; whole?: unknown; path?: unknown } | null;
  if (typeof source !== 'object' || source === null) return false;
  if (source.from === 'stdin') return typeof source.prompt === 'string' && source.prompt.length <= 200 && (source.whole === undefined || typeof source.whole === 'boolean');
  if (source.from === 'file') return typeof source.path === 'string' && source.path.length > 0 && source.path.length <= MAX_PATH_CHARS && !source.path.includes('\0');
  return source.from === 'env' && typeof source.name === 'string' && ENV_NAME.test(source.name);
}

export interface SecretTerminal {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Where the question goes at a terminal (stderr: stdout stays the command's). */
  stderr: NodeJS.WritableStream;
  /** The CLI's environment (the caller passes it: only lib/env.ts reads process.env in lib/). */
  environment: Record<string, string | undefined>;
  /** Where a relative file path starts: the operator's folder (`npm run` moves to the package's; INIT_CWD is theirs). Default: this process's. */
  cwd?: string;
}

/**
 * The value, or undefined when none was given (nothing piped, an empty line, a variable unset or empty, an empty
 * file). A file that cannot be read throws, with why in words.
 */
export async function readSecret(source: SecretSource, terminal: SecretTerminal): Promise<string | undefined> {
  if (source.from === 'env') return terminal.environment[source.name] || undefined;
  if (source.from === 'file') return (await fileText(path.resolve(terminal.cwd ?? process.cwd(), source.path), source.path)) || undefined;
  if (terminal.stdin.isTTY && source.whole) terminal.stderr.write(`${source.prompt} (then Ctrl-D on a line of its own):\n`);
  const value = terminal.stdin.isTTY && !source.whole ? await typedUnseen(source.prompt, terminal) : await piped(terminal.stdin, source.whole ? MAX_FILE_CHARS : MAX_SECRET_CHARS);
  return value || undefined;
}

/** A file's text, at most MAX_FILE_CHARS (a pipe such as <(…) too); a failure said with the path as given. */
async function fileText(resolved: string, given: string): Promise<string> {
  let text = '';
  try {
    for await (const chunk of createReadStream(resolved, { encoding: 'utf8', highWaterMark: 8192 })) {
      text += chunk as string;
      if (text.length > MAX_FILE_CHARS) throw new Error(`${given} holds more than ${MAX_FILE_CHARS} characters: that is no key, key set or token`);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error(`there is no file ${given}`);
    if (code === 'EISDIR') throw new Error(`${given} is a folder, not a file`);
    if (code === 'EACCES' || code === 'EPERM') throw new Error(`${given} cannot be read (permission denied)`);
    throw error;
  }
  return text;
}

/** A line typed at the terminal, not echoed (readline writes its echo to a sink). */
async function typedUnseen(prompt: string, terminal: SecretTerminal): Promise<string> {
  terminal.stderr.write(`${prompt} (not shown as you type): `);
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  const line = createInterface({ input: terminal.stdin, output: sink, terminal: true });
  try {
    return await line.question('');
  } finally {
    line.close();
    terminal.stderr.write('\n');
  }
}

/** Everything piped in, without the one line ending a `echo` or a here-string adds. */
async function piped(stdin: NodeJS.ReadableStream, max = MAX_SECRET_CHARS): Promise<string> {
  let text = '';
  for await (const chunk of stdin) {
    text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    if (text.length > max) throw new Error(`more than ${max} characters came on standard input: that is no ${max === MAX_SECRET_CHARS ? 'credential' : 'key, key set or token'}`);
  }
  return text.replace(/\r?\n$/, '');
}
