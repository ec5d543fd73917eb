import { defineConfig } from '@playwright/test';
import { env } from './lib/env';
import { E2E_PORT } from './e2e/support/constants';

// Debian's Chromium (apt-get install -y chromium); Playwright never downloads a browser here.
const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export default defineConfig({
  testDir: './e2e',
  outputDir: './e2e-artifacts',
  timeout: 120_000,
  fullyParallel: false,
  workers: 1,
  reporter: [['list']],
  use: {
    baseURL: `http://localhost:${E2E_PORT}`,
    screenshot: 'on',
    trace: 'retain-on-failure',
    launchOptions: { executablePath: env().CHROMIUM_PATH, args: chromiumArgs },
  },
  webServer: {
    command: 'node --import tsx e2e/support/serve.ts',
    url: `http://127.0.0.1:${E2E_PORT}/api/ready`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 15_000 },
  },
});
