// `npm run portico -- <noun> <verb> [options]`: the operator CLI. Help and misuse are answered from the catalog alone
// (lib/cli/catalog.ts). A command goes to the running Portico when one holds the data folder (its control socket,
// lib/cli/control-client.ts), and opens the configured database itself only when none does. Heavy modules load only
// on that last path.
import { createInterface } from 'node:readline/promises';
import { parseCommandLine } from '../lib/cli/catalog';
import { readSecret, type SecretSource } from '../lib/cli/secret-input';
import { terminalLine } from '../lib/util/visible-text';

const argv = process.argv.slice(2);

/** A second guard behind terminalText on each value: no control character reaches the terminal raw. */
function printable(text: string): string {
  return text.split('\n').map(terminalLine).join('\n');
}
const out = (line: string) => console.log(printable(line));
const err = (line: string) => console.error(printable(line));

/** A yes/no question at the terminal; no terminal (a pipe, a script) means no. */
async function askAtTerminal(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await prompt.question(`${printable(question)} [y/N] `)).trim());
  } finally {
    prompt.close();
  }
}

/**
 * A secret a command asks for (an upstream's credential, a workload's token): this process's stdin or one of its
 * variables, never argv; or a file the operator named, relative to the folder they ran npm in (INIT_CWD).
 */
const secretAtTerminal = (source: SecretSource) => readSecret(source, { stdin: process.stdin, stderr: process.stderr, environment: process.env, cwd: process.env.INIT_CWD || process.cwd() });

async function main(): Promise<number> {
  const line = parseCommandLine(argv);
  if (line.kind === 'help') {
    out(line.text);
    return 0;
  }
  if (line.kind === 'misuse') {
    err(line.text);
    return 2;
  }
  const { envOrExit } = await import('../lib/env');
  const env = envOrExit();
  const { ControlSocketError, runThroughServer } = await import('../lib/cli/control-client');
  try {
    const viaServer = await runThroughServer(env.dataDir, argv, { out, err, ask: askAtTerminal, interactive: process.stdin.isTTY === true, secret: secretAtTerminal });
    if (viaServer !== undefined) return viaServer;
  } catch (error) {
    if (!(error instanceof ControlSocketError)) throw error;
    err(error.message);
    return 1;
  }

  // No server holds the folder: this process opens the database (and, for the embedded one, takes the folder's lock).
  const [{ hostname, userInfo }, { openConfiguredDatabase }, { runCli }, { drizzleFor }, { migrateDatabase }, { resolveSecretKey }, { describeStartupFailure }] = await Promise.all([
    import('node:os'),
    import('../lib/boot'),
    import('../lib/cli'),
    import('../lib/db/client'),
    import('../lib/db/migrate'),
    import('../lib/security/at-rest'),
    import('../lib/startup-messages'),
  ]);
  try {
    const raw = await openConfiguredDatabase(env);
    try {
      await migrateDatabase(raw);
      return await runCli(
        argv,
        {
          db: drizzleFor(raw),
          issuer: env.PORTICO_ISSUER,
          atRestKey: resolveSecretKey(env.PORTICO_SECRET_KEY, env.dataDir).key,
          operator: `cli:${userInfo().username}@${hostname()}`,
          out,
          confirm: askAtTerminal,
          readSecret: secretAtTerminal,
        },
        err,
      );
    } finally {
      await raw.close();
    }
  } catch (error) {
    err(describeStartupFailure(error));
    return 1;
  }
}

process.exit(await main());
