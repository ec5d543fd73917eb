// `npm run db:seed`: migrate and run the demo seed (a no-op when it already ran), printing what it did.
import { openConfiguredDatabase } from '../lib/boot';
import { drizzleFor } from '../lib/db/client';
import { migrateDatabase } from '../lib/db/migrate';
import { envOrExit } from '../lib/env';
import { seedDemo } from '../lib/seed/demo';
import { demoClientSecretText, describeStartupFailure } from '../lib/startup-messages';

const env = envOrExit();
try {
  const raw = await openConfiguredDatabase(env);
  await migrateDatabase(raw);
  const result = await seedDemo(drizzleFor(raw), {
    email: env.PORTICO_DEMO_EMAIL,
    password: env.PORTICO_DEMO_PASSWORD,
    clientId: env.PORTICO_DEMO_CLIENT_ID,
    clientSecret: env.PORTICO_DEMO_CLIENT_SECRET,
    redirectUri: env.PORTICO_DEMO_REDIRECT_URI,
  });
  await raw.close();
  if (result.status === 'created') {
    console.log(`Demo seeded. Owner ${result.email}, password ${result.passwordGenerated ? result.password : '(from PORTICO_DEMO_PASSWORD)'}`);
    console.log(`Demo app client_id ${result.clientId}, client_secret ${demoClientSecretText(result, env.PORTICO_ISSUER)}`);
  } else if (result.status === 'present') {
    console.log(`The demo seed already ran (owner ${result.email}); nothing changed.`);
  } else {
    console.log('The database was not empty when first seeded; the demo seed does not run on it.');
  }
} catch (error) {
  console.error(describeStartupFailure(error));
  process.exit(1);
}
