// The CLI's side of the control socket (./control-protocol.ts): when a running Portico holds the data folder, the
// command goes to it. Light (no database, no domain module), so a command answered by the server starts at once.
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { controlSocketPath, jsonLines, MAX_SECRET_ERROR, proofFilePath, type ClientMessage } from './control-protocol';
import { isSecretSource, type SecretSource } from './secret-input';

export interface ControlTerminal {
  out(line: string): void;
  err(line: string): void;
  /** Asks at the terminal (only called when `interactive`). */
  ask(question: string): Promise<boolean>;
  interactive: boolean;
  /** Reads a secret the command asks for (the CLI's stdin or one of its variables); without it, none is given. */
  secret?(source: SecretSource): Promise<string | undefined>;
}

/** The server's answer could not be had for a reason the person must hear (not "no server": then the CLI goes on alone). */
export class ControlSocketError extends Error {}

/**
 * Runs the command in the server that holds `dataDir`, printing what it says; answers its exit code, or undefined
 * when no server answers there (no socket, or one left by a server that stopped).
 */
export function runThroughServer(dataDir: string, argv: string[], terminal: ControlTerminal): Promise<number | undefined> {
  const socketPath = controlSocketPath(dataDir);
  if (!existsSync(socketPath)) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath);
    let connected = false;
    let finished = false;
    let proof: string | undefined;
    const finish = (outcome: () => void) => {
      if (finished) return;
      finished = true;
      if (proof) void rm(proof, { force: true }).catch(() => {});
      socket.destroy();
      outcome();
    };
    const send = (message: ClientMessage) => socket.write(`${JSON.stringify(message)}\n`);
    socket.once('connect', () => (connected = true));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (!connected && (error.code === 'ECONNREFUSED' || error.code === 'ENOENT')) finish(() => resolve(undefined));
      else if (error.code === 'EACCES' || error.code === 'EPERM')
        finish(() => reject(new ControlSocketError(`The running Portico's control socket (${socketPath}) belongs to another user: run this command as the user who runs Portico.`)));
      else finish(() => reject(new ControlSocketError(`The running Portico's control socket failed: ${error.message}`)));
    });
    const answerSecret = (source: unknown) => {
      const read = isSecretSource(source) && terminal.secret ? terminal.secret(source) : Promise.resolve(undefined);
      // A secret that cannot be read (too long, a file that is not there) is none, with why: the command says it.
      void read.then(
        (value) => send({ type: 'secret', value: value ?? null }),
        (error: unknown) => send({ type: 'secret', value: null, error: (error instanceof Error ? error.message : String(error)).slice(0, MAX_SECRET_ERROR) }),
      );
    };
    socket.on('close', () => finish(() => reject(new ControlSocketError('The running Portico ended the connection before the command finished (did it stop?). Check with the list commands, then try again.'))));
    socket.on(
      'data',
      jsonLines(
        (raw) => {
          const message = raw as { type?: string; nonce?: string; line?: string; question?: string; code?: number; message?: string; source?: unknown };
          if (message.type === 'hello' && typeof message.nonce === 'string' && /^[A-Za-z0-9_-]{24}$/.test(message.nonce)) {
            proof = proofFilePath(dataDir, message.nonce);
            writeFile(proof, message.nonce, { flag: 'wx', mode: 0o600 }).then(
              () => send({ type: 'run', argv, interactive: terminal.interactive }),
              (error: NodeJS.ErrnoException) =>
                finish(() =>
                  reject(
                    new ControlSocketError(
                      error.code === 'EACCES' || error.code === 'EPERM'
                        ? `Portico runs on this data folder (${dataDir}) as another user: run this command as that user.`
                        : `Could not prove who runs this command: ${error.message}`,
                    ),
                  ),
                ),
            );
          } else if (message.type === 'out' && typeof message.line === 'string') terminal.out(message.line);
          else if (message.type === 'err' && typeof message.line === 'string') terminal.err(message.line);
          else if (message.type === 'confirm' && typeof message.question === 'string') {
            void terminal.ask(message.question).then((yes) => send({ type: 'answer', yes }));
          } else if (message.type === 'secret') answerSecret(message.source);
          else if (message.type === 'exit' && Number.isInteger(message.code)) finish(() => resolve(message.code!));
          else if (message.type === 'refused' && typeof message.message === 'string') {
            terminal.err(message.message);
            finish(() => resolve(1));
          }
        },
        () => finish(() => reject(new ControlSocketError('The running Portico answered something this CLI does not understand (another version?).'))),
      ),
    );
  });
}
