// The end-to-end run's secret scan (e2e/support/secret-scan.ts) has teeth: it finds a JWT, a fixture's password, a
// mail link's token and a remembered refresh token in log lines, names kind, file and line, and passes the lines a
// server really writes (an access log line with its path redacted by lib/observability/log.ts).
import { describe, expect, it } from 'vitest';
import { loggablePath } from '../../lib/observability/log';
import { DEMO } from '../../e2e/support/constants';
import { findSecretsIn, fixtureSecrets, mailSecrets } from '../../e2e/support/secret-scan';

const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJwZXJzb24tMSIsImF1ZCI6Imh0dHBzOi8vYXBwIn0.c2lnbmF0dXJl';
const resetToken = 'Zk3vQ9sT1xW7yB2nM5pR8cL4dH6jF0gA';

describe('the secret scan of the servers\' output', () => {
  it('knows the fixtures\' passwords and client secrets and the tokens in mail links', () => {
    expect(fixtureSecrets().map((secret) => secret.value)).toEqual(expect.arrayContaining([DEMO.password, DEMO.clientSecret]));
    const mail = `Choose your password: http://localhost:3210/auth/reset/${resetToken}\nOr paste https://x.test/accept?token=${resetToken}x&lang=en`;
    expect(mailSecrets([mail]).map((secret) => secret.value)).toEqual([resetToken, `${resetToken}x`]);
    // An approval request's id in a notification's link is an identifier: the central's page needs a session.
    expect(mailSecrets(['Decide: http://localhost:3210/central/requests/apr_VJ4DOSm31uPKK5cJwTbXhZOB'])).toEqual([]);
  });

  it('finds each secret and every JWT, by kind, file and line', () => {
    const clean = JSON.stringify({ level: 30, reqId: '6f1c2e4a-0a4b-4c1e-9d55-0b8c5e8f2a10', method: 'GET', path: loggablePath(`/auth/reset/${resetToken}`), status: 200 });
    const logs = [
      { file: 'portico-3210.log', text: [clean, `{"msg":"token ${jwt}"}`, clean].join('\n') },
      { file: 'portico-3219.log', text: [clean, `refused password ${DEMO.password} for demo`, `{"path":"/auth/reset/${resetToken}"}`, `refresh rt-0123456789abcdef`].join('\n') },
    ];
    const leaks = findSecretsIn(logs, [...fixtureSecrets(), ...mailSecrets([`https://x.test/auth/reset/${resetToken}`]), { kind: 'a refresh token', value: 'rt-0123456789abcdef' }]);
    expect(leaks).toEqual([
      { kind: 'a JSON Web Token', file: 'portico-3210.log', line: 2 },
      { kind: 'fixture password', file: 'portico-3219.log', line: 2 },
      { kind: 'a link from a mail', file: 'portico-3219.log', line: 3 },
      { kind: 'a refresh token', file: 'portico-3219.log', line: 4 },
    ]);
    expect(findSecretsIn([{ file: 'clean.log', text: clean }], fixtureSecrets())).toEqual([]);
  });
});
