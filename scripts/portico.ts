// `npm run portico -- <noun> <verb> [options]`: the operator CLI (lib/cli). It opens the configured database
// directly; with the embedded database, stop the server first (one process per data folder).
import { hostname, userInfo } from 'node:os';
import { createInterface } from 'node:readline/promises';
import { openConfiguredDatabase } from '../lib/boot';
import { runCli } from '../lib/cli';
import { drizzleFor } from '../lib/db/client';
import { migrateDatabase } from '../lib/db/migrate';
import { resolveSecretKey } from '../lib/security/at-rest';
import { envOrExit } from '../lib/env';
import { terminalLine } from '../lib/util/visible-text';
import { describeStartupFailure } from '../lib/startup-messages';

const env = envOrExit();

/** A second guard behind terminalText on each value: no control character reaches the terminal raw. */
function printable(text: string): string {
  return text.split('\n').map(terminalLine).join('\n');
}

/** A yes/no question at the terminal; no terminal (a pipe, a script) means no. */
async function askAtTerminal(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
  } finally {
    prompt.close();
  }
}
let code: number;
try {
  const raw = await openConfiguredDatabase(env);
  try {
    await migrateDatabase(raw);
    const operator = `cli:${userInfo().username}@${hostname()}`;
    code = await runCli(
      process.argv.slice(2),
      {
        db: drizzleFor(raw),
        issuer: env.PORTICO_ISSUER,
        atRestKey: resolveSecretKey(env.PORTICO_SECRET_KEY, env.dataDir).key,
        operator,
        out: (line) => console.log(printable(line)),
        confirm: askAtTerminal,
      },
      (line) => console.error(printable(line)),
    );
  } finally {
    await raw.close();
  }
} catch (error) {
  console.error(describeStartupFailure(error));
  code = 1;
}
process.exit(code);
