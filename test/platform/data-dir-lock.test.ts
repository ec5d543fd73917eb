import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireDataDirLock, DataDirInUseError } from '../../lib/db/data-dir-lock';

describe('embedded database folder lock', () => {
  it('refuses a second holder while the first process is alive', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'portico-lock-'));
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      writeFileSync(path.join(dir, 'portico.pid'), String(holder.pid));
      expect(() => acquireDataDirLock(dir)).toThrow(DataDirInUseError);
      expect(() => acquireDataDirLock(dir)).toThrow(new RegExp(`pid ${holder.pid}`));
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('takes over a lock left by a process that died (kill -9), and releases it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'portico-lock-'));
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => dead.on('exit', resolve));
    writeFileSync(path.join(dir, 'portico.pid'), String(dead.pid));
    const release = acquireDataDirLock(dir);
    expect(existsSync(path.join(dir, 'portico.pid'))).toBe(true);
    release();
    expect(existsSync(path.join(dir, 'portico.pid'))).toBe(false);
  });
});
