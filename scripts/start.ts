// `npm start`: build the Next.js app when the build is missing or older than the sources, then run the server
// in this same process (so that stopping this process stops Portico, and a kill -9 leaves nothing behind).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { buildEnvironment } from '../lib/env';

const root = process.cwd();
const buildId = path.join(root, '.next', 'BUILD_ID');
const sources = ['app', 'app-kit', 'lib', 'public', 'proxy.ts', 'next.config.ts', 'package-lock.json', 'tsconfig.json'];

function newestModification(entry: string): number {
  if (!existsSync(entry)) return 0;
  const stats = statSync(entry);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return readdirSync(entry).reduce((newest, name) => Math.max(newest, newestModification(path.join(entry, name))), stats.mtimeMs);
}

const builtAt = existsSync(buildId) ? statSync(buildId).mtimeMs : 0;
const changedAt = Math.max(...sources.map((source) => newestModification(path.join(root, source))));
if (builtAt < changedAt) {
  console.log(builtAt === 0 ? 'Building Portico (first start)…' : 'Sources changed since the last build: rebuilding…');
  const build = spawnSync('npx', ['next', 'build'], { stdio: 'inherit', cwd: root, env: buildEnvironment() });
  if (build.status !== 0) {
    console.error('Portico cannot start: `next build` failed (see above).');
    process.exit(build.status ?? 1);
  }
}

await import('../server');
