// `npm run portico -- <noun> <verb> [options]`: the operator CLI (lib/cli). It opens the configured database
// directly; with the embedded database, stop the server first (one process per data folder).
import { hostname, userInfo } from 'node:os';
import { openConfiguredDatabase } from '../lib/boot';
import { runCli } from '../lib/cli';
import { drizzleFor } from '../lib/db/client';
import { migrateDatabase } from '../lib/db/migrate';
import { resolveSecretKey } from '../lib/security/at-rest';
import { envOrExit } from '../lib/env';
import { describeStartupFailure } from '../lib/startup-messages';

const env = envOrExit();
let code: number;
try {
  const raw = await openConfiguredDatabase(env);
  try {
    await migrateDatabase(raw);
    const operator = `cli:${userInfo().username}@${hostname()}`;
    code = await runCli(
      process.argv.slice(2),
      { db: drizzleFor(raw), issuer: env.PORTICO_ISSUER, atRestKey: resolveSecretKey(env.PORTICO_SECRET_KEY, env.dataDir).key, operator, out: (line) => console.log(line) },
      (line) => console.error(line),
    );
  } finally {
    await raw.close();
  }
} catch (error) {
  console.error(describeStartupFailure(error));
  code = 1;
}
process.exit(code);
