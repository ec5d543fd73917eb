// Acceptance: kill -9 the server and start it again: same JWKS kid, the demo account still signs in,
// the seed did not run twice.
import { expect, test } from '@playwright/test';
import { signInAndExchange, demoRelyingParty } from './support/relying-party';
import { createStorage, startPortico } from './support/portico-process';
import { env } from '../lib/env';

const PORT = 3211;

test('a server killed with SIGKILL restarts with the same keys and data', async ({ page, request }) => {
  const storage = await createStorage('portico-restart');
  try {
    const first = await startPortico(PORT, storage);
    expect(first.output()).toContain('Demo organization created');
    const kidsBefore = ((await (await request.get(`http://127.0.0.1:${PORT}/oidc/jwks`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);

    first.process.kill('SIGKILL');
    await first.exited;

    const second = await startPortico(PORT, storage);
    try {
      expect(second.output()).not.toContain('Demo organization created');
      expect(second.output()).toContain('password as printed on first start');
      const kidsAfter = ((await (await request.get(`http://127.0.0.1:${PORT}/oidc/jwks`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
      expect(kidsAfter).toEqual(kidsBefore);

      const config = await demoRelyingParty(`http://localhost:${PORT}`);
      const { tokens } = await signInAndExchange(page, config);
      expect(tokens.claims()?.iss).toBe(`http://localhost:${PORT}`);
    } finally {
      second.process.kill('SIGTERM');
      await second.exited;
    }
  } finally {
    await storage.dispose();
  }
});

test('a second process on the same embedded data folder is refused with a clear message', async () => {
  test.skip(Boolean(env().DATABASE_URL), 'only the embedded database is limited to one process');
  const storage = await createStorage('portico-lock');
  const first = await startPortico(PORT, storage);
  try {
    const second = startPortico(PORT + 1, storage);
    await expect(second).rejects.toThrow(new RegExp(`Another Portico process \\(pid ${first.process.pid}\\) is already using the embedded database`));
  } finally {
    first.process.kill('SIGTERM');
    await first.exited;
    await storage.dispose();
  }
});
