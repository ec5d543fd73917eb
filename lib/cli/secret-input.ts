// A secret the operator hands the CLI (an upstream's API key) without writing it on the command line, where shell
// history and `ps` would keep it: read from the CLI's standard input — typed without echo at a terminal, or piped in —
// or from one of the CLI's environment variables, named on the command line. Always read on the operator's side: a
// command that runs inside the server (./control-socket.ts) asks the CLI for it over the control socket. Light (no
// database, no domain module), like the rest of what the CLI loads before it knows where the command runs.
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';

/** Where the secret comes from: standard input (with the words to ask for it at a terminal), or a variable. */
export type SecretSource = { from: 'stdin'; prompt: string } | { from: 'env'; name: string };

/** An environment variable's name as a shell writes it. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** More than any credential a header carries: piped input beyond this is refused, not read on. */
export const MAX_SECRET_CHARS = 16 * 1024;

export function isSecretSource(value: unknown): value is SecretSource {
  const source = value as { from?: unknown; prompt?: unknown; name?: unknown } | null;
  if (typeof source !== 'object' || source === null) return false;
  if (source.from === 'stdin') return typeof source.prompt === 'string' && source.prompt.length <= 200;
  return source.from === 'env' && typeof source.name === 'string' && ENV_NAME.test(source.name);
}

export interface SecretTerminal {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Where the question goes at a terminal (stderr: stdout stays the command's). */
  stderr: NodeJS.WritableStream;
  /** The CLI's environment (the caller passes it: only lib/env.ts reads process.env in lib/). */
  environment: Record<string, string | undefined>;
}

/** The secret, or undefined when none was given (nothing piped, an empty line, a variable unset or empty). */
export async function readSecret(source: SecretSource, terminal: SecretTerminal): Promise<string | undefined> {
  if (source.from === 'env') return terminal.environment[source.name] || undefined;
  const value = terminal.stdin.isTTY ? await typedUnseen(source.prompt, terminal) : await piped(terminal.stdin);
  return value || undefined;
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
async function piped(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stdin) {
    text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    if (text.length > MAX_SECRET_CHARS) throw new Error(`more than ${MAX_SECRET_CHARS} characters came on standard input: that is no credential`);
  }
  return text.replace(/\r?\n$/, '');
}
