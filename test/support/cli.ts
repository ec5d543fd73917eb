// The operator CLI as a test drives it: one command line against a test database, what it printed, its exit code,
// and the answers the operator gives at the terminal, in order (none left: no).
import { runCli } from '../../lib/cli';
import type { Database } from '../../lib/db/client';

export function cliRunner(db: Database, atRestKey: Uint8Array, answers: boolean[] = []) {
  return async function run(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { db, issuer: 'https://id.example.test', atRestKey, operator: 'cli:test@host', out: (l) => out.push(l), confirm: async () => answers.shift() ?? false }, (l) => err.push(l));
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
}
