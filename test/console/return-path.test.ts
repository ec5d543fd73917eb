// Where a console sign-in continues: the console page the person asked for, and never anywhere else (no open
// redirect through `next`, however it is spelt).
import { describe, expect, it } from 'vitest';
import { consoleReturnPath } from '../../lib/accounts/console-sign-in';

describe('the console sign-in return path', () => {
  it('keeps a console page with its query', () => {
    expect(consoleReturnPath('/console/acme/apps/9b2f0c2e-8a7e-4c55-9d55-2d9f1c3b1a10/security')).toBe('/console/acme/apps/9b2f0c2e-8a7e-4c55-9d55-2d9f1c3b1a10/security');
    expect(consoleReturnPath('/console/acme/audit?action=app.deleted&page=2')).toBe('/console/acme/audit?action=app.deleted&page=2');
    expect(consoleReturnPath('/console/confirm/cnf_abcdefghijklmnopqrstuvwxyz012345')).toBe('/console/confirm/cnf_abcdefghijklmnopqrstuvwxyz012345');
  });

  it('sends anything else to the console', () => {
    for (const hostile of [
      undefined,
      42,
      '',
      '/console',
      'https://evil.example/console/acme',
      '//evil.example/console/acme',
      '/\\evil.example/console',
      '/console/\\\\evil.example',
      '/console//evil.example',
      '/console/../central',
      '/console/%2e%2e/central',
      '/central/requests',
      '/console/login?next=https://evil.example',
      '/console/session/end',
      'javascript:alert(1)',
      `/console/${'a'.repeat(600)}`,
    ]) {
      expect(consoleReturnPath(hostile), String(hostile)).toBe('/console');
    }
  });
});
