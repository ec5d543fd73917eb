// The operator CLI as a test drives it: one command line against a test database, what it printed, its exit code,
// and the answers the operator gives at the terminal, in order (none left: no). `extra` gives what a test sets of the
// context besides (the secret the operator hands over, an outbound policy that allows loopback).
import { runCli, type CliContext } from '../../lib/cli';
import type { Database } from '../../lib/db/client';

export function cliRunner(db: Database, atRestKey: Uint8Array, answers: boolean[] = [], extra: Partial<Pick<CliContext, 'readSecret' | 'outbound'>> = {}) {
  return async function run(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { db, issuer: 'https://id.example.test', atRestKey, operator: 'cli:test@host', out: (l) => out.push(l), confirm: async () => answers.shift() ?? false, ...extra }, (l) => err.push(l));
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
}
