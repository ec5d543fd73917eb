// `npm run db:migrate`: apply pending migrations to the configured database, then exit.
import { openConfiguredDatabase } from '../lib/boot';
import { migrateDatabase } from '../lib/db/migrate';
import { envOrExit } from '../lib/env';
import { describeStartupFailure } from '../lib/startup-messages';

const env = envOrExit();
try {
  const raw = await openConfiguredDatabase(env);
  await migrateDatabase(raw);
  await raw.close();
  console.log('Migrations applied.');
} catch (error) {
  console.error(describeStartupFailure(error));
  process.exit(1);
}
