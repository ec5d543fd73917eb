// The runtime Portico runs on (README, docs/deploy.md#runtime): the Node.js 24 LTS build that npm installs from the
// registry for this platform (package.json's optionalDependencies) runs the suite itself, and the check before every
// npm script stops an older Node with one line that names the fix.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string }; optionalDependencies: Record<string, string>; scripts: Record<string, string> };
const pinned = Object.entries(manifest.optionalDependencies).filter(([name]) => /^node-(linux|darwin|win)-/.test(name));

describe('the runtime', () => {
  it('pins one exact Node.js 24 LTS version for every platform package, and says what else is supported', () => {
    expect(pinned.length).toBeGreaterThan(0);
    const versions = new Set(pinned.map(([, version]) => version));
    expect(versions.size).toBe(1);
    expect([...versions][0]).toMatch(/^24\.\d+\.\d+$/);
    expect(manifest.engines.node).toBe('>=22.12');
  });

  it('runs this suite on the pinned build where npm installed one', () => {
    const installed = pinned.find(([name]) => existsSync(path.join('node_modules', name, 'bin', 'node')));
    if (!installed) return; // A platform the registry has no build for: the system's Node (>= 22.12) runs it.
    expect(process.version).toBe(`v${installed[1]}`);
  });

  it('checks the runtime before every script that starts Portico or its tools', () => {
    for (const script of ['start', 'dev', 'test', 'portico', 'example', 'bench', 'soak', 'db:migrate', 'db:seed']) {
      expect(manifest.scripts[`pre${script}`], script).toBe('node scripts/check-runtime.mjs');
    }
  });

  it('stops an older Node with one line that names the fix, and lets a supported one through', () => {
    expect(spawnSync(process.execPath, ['scripts/check-runtime.mjs']).status).toBe(0);
    // The machine's own Node, when it is older than 22.12 (as Node 20 on the development machines).
    const system = ['/usr/bin/node', '/usr/local/bin/node'].find((candidate) => existsSync(candidate));
    if (!system) return;
    const [major, minor] = execFileSync(system, ['-p', 'process.versions.node']).toString().trim().split('.').map(Number) as [number, number];
    if (major > 22 || (major === 22 && minor >= 12)) return;
    const run = spawnSync(system, ['scripts/check-runtime.mjs'], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Portico needs Node\.js 22\.12 or later \(24 LTS recommended\) and found v\d+\.\d+\.\d+ at .+: run `npm install` on Linux x64 or arm64 to get the pinned Node\.js 24, or install Node\.js 24 LTS system-wide\.$/);
  });
});
