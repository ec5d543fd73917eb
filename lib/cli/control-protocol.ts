// The control socket's protocol, shared by the running server (./control-socket.ts) and the CLI (./control-client.ts):
// one command per connection, newline-delimited JSON, in this order:
//   server → { type: 'hello', nonce }                     a fresh random value
//   client → { type: 'run', argv, interactive }          after writing the proof file (below)
//   server → { type: 'out' | 'err', line }*, { type: 'confirm', question } ↔ client { type: 'answer', yes }, …
//            { type: 'secret', source } ↔ client { type: 'secret', value, error? }   (read on the CLI's side: ./secret-input.ts)
//   server → { type: 'exit', code } | { type: 'refused', message }
// Who may send: the socket file is 0600 in the data folder (the kernel lets only its owner, and root, connect), and
// the peer proves its uid — Node has no SO_PEERCRED, so the peer creates the proof file named after the nonce, in the
// data folder, holding the nonce; the kernel sets the file's owner to the creator's uid, which the server compares
// with its own (lstat: a regular file, one link, no group or other permission bits).
import path from 'node:path';
import type { SecretSource } from './secret-input';

export const CONTROL_SOCKET_FILE = 'portico.sock';
/** A line longer than this ends the connection (an argv is small; an answer is a word). */
export const MAX_CONTROL_LINE = 64 * 1024;
export const MAX_ARGV = 64;

export const controlSocketPath = (dataDir: string) => path.join(dataDir, CONTROL_SOCKET_FILE);
export const proofFilePath = (dataDir: string, nonce: string) => path.join(dataDir, `.cli-proof-${nonce}`);

export type ServerMessage =
  | { type: 'hello'; nonce: string }
  | { type: 'out'; line: string }
  | { type: 'err'; line: string }
  | { type: 'confirm'; question: string }
  | { type: 'secret'; source: SecretSource }
  | { type: 'exit'; code: number }
  | { type: 'refused'; message: string };

/** A secret's answer: its value, or null with why it could not be read (a file that is not there), when it could not. */
export type ClientMessage = { type: 'run'; argv: string[]; interactive: boolean } | { type: 'answer'; yes: boolean } | { type: 'secret'; value: string | null; error?: string };

/** The longest reason for an unread secret the server takes (it is printed as the command's refusal). */
export const MAX_SECRET_ERROR = 500;

/** Splits a stream into JSON lines; a line too long or not JSON ends it (onBad). */
export function jsonLines(onMessage: (message: unknown) => void, onBad: () => void): (chunk: Buffer) => void {
  let buffered = '';
  return (chunk) => {
    buffered += chunk.toString('utf8');
    if (buffered.length > MAX_CONTROL_LINE * 2) {
      onBad();
      return;
    }
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.length > MAX_CONTROL_LINE) {
        onBad();
        return;
      }
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        onBad();
        return;
      }
      onMessage(message);
    }
  };
}
