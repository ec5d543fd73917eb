// The server refuses to start on bad configuration, with a message and without a stack trace.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { childProcessEnvironment } from '../../lib/env';

function startServer(overrides: Record<string, string | undefined>) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'server.ts'], {
    cwd: process.cwd(),
    env: childProcessEnvironment({ PORTICO_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'portico-cfg-')), ...overrides }),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('start-up configuration errors', () => {
  it('a plain-http issuer on a public host stops Portico with a message about TLS', () => {
    const { status, output } = startServer({ PORTICO_ISSUER: 'http://example.com' });
    expect(status).not.toBe(0);
    expect(output).toMatch(/PORTICO_ISSUER/);
    expect(output).toMatch(/TLS/);
    expect(output).not.toMatch(/\n\s+at /); // no stack frames
  });

  it('a malformed DATABASE_URL stops Portico with a clear message', () => {
    const { status, output } = startServer({ DATABASE_URL: 'postgres//nope' });
    expect(status).not.toBe(0);
    expect(output).toMatch(/DATABASE_URL: must be a PostgreSQL URL/);
    expect(output).not.toMatch(/\n\s+at /);
  });

  it('an unreachable database stops Portico with a message that hides the password', () => {
    const { status, output } = startServer({ DATABASE_URL: 'postgres://portico:hunter2-secret@127.0.0.1:1/portico' });
    expect(status).not.toBe(0);
    expect(output).toMatch(/cannot reach the PostgreSQL database at 127\.0\.0\.1:1\/portico/);
    expect(output).not.toContain('hunter2-secret');
    expect(output).not.toMatch(/\n\s+at /);
  });
});
