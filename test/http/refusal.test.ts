// The one refusal family (lib/refusals/refusal.ts): what a refusal carries to every door, how a rule that goes on
// after another's refusal recognizes it (by its domain, never its class), and the OAuth-shaped door's answer.
import { describe, expect, it } from 'vitest';
import { localized } from '../../lib/i18n/catalogs';
import { oauthRefusalAnswer } from '../../lib/http/errors';
import { commandRefusal, operationRefusal } from '../../lib/organizations/refusal-codes';
import { stepUpRefusal } from '../../lib/accounts/refusal-codes';
import { codeOfStatus, Refusal, refusalOf } from '../../lib/refusals/refusal';

describe('the refusal family', () => {
  it('carries status, code, words (English as its message), field and domain', () => {
    const refusal = stepUpRefusal(localized('account.refusals.wrongPassword'), 'password');
    expect(refusal).toBeInstanceOf(Refusal);
    expect(refusal).toMatchObject({ status: 403, code: 'step_up', field: 'password', domain: 'step_up' });
    expect(refusal.text?.key).toBe('account.refusals.wrongPassword');
    expect(refusal.message).not.toBe('account.refusals.wrongPassword');
    expect(refusal.message.length).toBeGreaterThan(0);
  });

  it('names a code from the status when a rule names none, and keeps the one it names', () => {
    expect(commandRefusal(409, 'taken').code).toBe(codeOfStatus(409));
    expect(commandRefusal(409, 'taken').code).toBe('conflict');
    expect(commandRefusal(404, 'gone').code).toBe('not_found');
    expect(commandRefusal(400, 'no', 'domains').code).toBe('domains');
    expect(operationRefusal('forbidden', localized('refusals.operation.notFound')).reason).toBe('forbidden');
  });

  it('is recognized by its domain only', () => {
    const refusal = commandRefusal(409, 'taken');
    expect(refusalOf(refusal, 'command')).toBe(refusal);
    expect(refusalOf(refusal, 'passkey')).toBeUndefined();
    expect(refusalOf(new Error('taken'), 'command')).toBeUndefined();
  });

  it('is answered by the OAuth-shaped door with its status and code, never for another error', async () => {
    const answer = oauthRefusalAnswer(commandRefusal(409, 'That name is taken.', 'name_taken'))!;
    expect(answer.status).toBe(409);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(await answer.json()).toEqual({ error: 'name_taken', error_description: 'That name is taken.' });
    expect(oauthRefusalAnswer(new Error('boom'))).toBeUndefined();
  });
});
