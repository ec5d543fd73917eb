// `npm run example`: starts the example app (examples/notes) next to a running Portico. Its identity variables
// (PORTICO_ISSUER, PORTICO_CLIENT_ID, PORTICO_CLIENT_SECRET, PORTICO_APP_IDENTITY, PORTICO_SURFACE_SECRET and
// EXAMPLE_ORIGIN) come from the file the demo seed wrote into Portico's data folder on its first start. This script
// is Portico tooling; the example app itself only uses the app kit and the values it is given.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { EXAMPLE_ENV_FILE } from '../lib/boot';
import { envOrExit } from '../lib/env';
import { startExampleApp } from '../examples/notes/app';

const env = envOrExit();
const file = path.join(env.dataDir, EXAMPLE_ENV_FILE);
let values: Record<string, string>;
try {
  values = Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
} catch {
  console.error(
    [
      `The example app's identity was not found in ${file}.`,
      'The demo seed writes it on Portico\'s first start with an empty database (npm start). On a database set up',
      'otherwise, create an app in the console (origin and redirect URI http://127.0.0.1:3100 and /callback), put',
      `its values into ${file} as NAME=value lines with EXAMPLE_ORIGIN=<origin>, and run this again.`,
    ].join('\n'),
  );
  process.exit(1);
}
const required = ['PORTICO_ISSUER', 'PORTICO_CLIENT_ID', 'PORTICO_CLIENT_SECRET', 'PORTICO_APP_IDENTITY', 'PORTICO_SURFACE_SECRET', 'EXAMPLE_ORIGIN'];
const missing = required.filter((name) => !values[name]);
if (missing.length > 0) {
  console.error(`${file} lacks ${missing.join(', ')}.`);
  process.exit(1);
}
const app = await startExampleApp({
  origin: values.EXAMPLE_ORIGIN!,
  issuer: values.PORTICO_ISSUER!,
  clientId: values.PORTICO_CLIENT_ID!,
  clientSecret: values.PORTICO_CLIENT_SECRET!,
  appIdentity: values.PORTICO_APP_IDENTITY!,
  surfaceSecret: values.PORTICO_SURFACE_SECRET!,
  log: (line) => console.log(`[notes] ${line}`),
});
console.log(`Notes (example app) is running at ${app.origin}; its MCP endpoint is ${app.resource}.`);
if (app.declaration && !app.declaration.ok) console.log('Start Portico first (npm start), then restart this to declare the surface.');
const stop = () => void app.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
