// mcp-remote driven over its stdio as a desktop host drives it (test/oidc/mcp-remote-device.test.ts and
// e2e/mcp-remote.spec.ts): what it logs, and the JSON-RPC answers it prints one per line.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';

/** mcp-remote's stdio, read as it comes: its log (stderr) and its JSON-RPC answers (stdout, one per line). */
export class McpRemote {
  log = '';
  private stdout = '';
  private readonly waiters: (() => void)[] = [];
  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stderr.on('data', (chunk: Buffer) => this.arrived(() => (this.log += chunk.toString())));
    child.stdout.on('data', (chunk: Buffer) => this.arrived(() => (this.stdout += chunk.toString())));
    child.on('exit', () => this.arrived(() => {}));
  }
  private arrived(append: () => void) {
    append();
    for (const waiter of this.waiters.splice(0)) waiter();
  }
  /** Waits until `find` finds something in what arrived, or fails with the log so far. */
  async until<T>(what: string, find: () => T | undefined, timeoutMs = 30_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = find();
      if (found !== undefined) return found;
      if (this.child.exitCode !== null || Date.now() > deadline) throw new Error(`mcp-remote: no ${what} (exit ${this.child.exitCode}); its log:\n${this.log}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 250);
      });
    }
  }
  send(message: object) {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }
  answer(id: number): Promise<{ result?: Record<string, unknown>; error?: unknown }> {
    return this.until(`answer to request ${id}`, () =>
      this.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { id?: number; result?: Record<string, unknown>; error?: unknown })
        .find((message) => message.id === id),
    );
  }
}
