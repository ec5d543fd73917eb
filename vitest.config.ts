import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file opens its own database; two workers match this machine's two cores.
    maxWorkers: 2,
    // A worker runs file after file without re-importing Portico for each (oidc-provider, Next's server parts, the
    // MCP SDKs): importing was a third of every file's time, and the whole suite took twice as long. Nothing of a
    // test's lives in a module: each file opens its own database, provider and servers (test/support), and closes
    // them in its afterAll.
    isolate: false,
    // The slowest files and tests, and any retried test, at the end of every run (test/support/slowest.ts).
    reporters: ['default', './test/support/vitest-report.ts'],
  },
});
