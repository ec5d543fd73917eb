// lib/http/errors.ts: the protocol shapes, the capped JSON body, and one status per refusal whichever handler answers.
import { describe, expect, it } from 'vitest';
import { approvalRefusal, approvalRefusalStatus, centralRefusal } from '../../lib/approvals/refusal-codes';
import { jsonRpcError, oauthError, readJsonObject } from '../../lib/http/errors';

const post = (body: string, headers: Record<string, string> = {}) => new Request('http://portico.test/x', { method: 'POST', body, headers });

describe('error vocabulary', () => {
  it('answers OAuth errors as {"error", "error_description"}, never cached, with extra headers', async () => {
    const response = oauthError(401, 'invalid_token', 'expired', { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
    expect(response.status).toBe(401);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(await response.json()).toEqual({ error: 'invalid_token', error_description: 'expired' });
  });

  it('answers JSON-RPC errors with id null', async () => {
    const response = jsonRpcError(413, -32600, 'too large');
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'too large' }, id: null });
  });

  it('reads a JSON object under a cap, and says what is wrong otherwise', async () => {
    expect(await readJsonObject(post('{"a":1}'), 64)).toEqual({ ok: true, value: { a: 1 } });
    expect(await readJsonObject(post('{"a":"' + 'x'.repeat(100) + '"}'), 64)).toMatchObject({ ok: false, problem: 'too_large', status: 413 });
    expect(await readJsonObject(post('{"a":1}', { 'content-length': '100000' }), 64)).toMatchObject({ ok: false, problem: 'too_large' });
    expect(await readJsonObject(post('{not json'), 64)).toMatchObject({ ok: false, problem: 'not_json', status: 400 });
    for (const body of ['null', '[]', '42', '"text"']) expect(await readJsonObject(post(body), 64)).toMatchObject({ ok: false, problem: 'not_object', status: 400 });
  });

  it('gives every approval and central refusal one status, whichever endpoint reports it', () => {
    // The central's nonce step and its decision both answer an ended session with 401: the page signs in again.
    expect(approvalRefusalStatus(centralRefusal('session', 'ended').code)).toBe(401);
    expect(approvalRefusalStatus(centralRefusal('nonce', 'spent').code)).toBe(409);
    expect(approvalRefusalStatus(centralRefusal('step_up', 'password').code)).toBe(403);
    expect(approvalRefusalStatus(approvalRefusal('not_authorized', 'no').code)).toBe(404);
    expect(approvalRefusalStatus(approvalRefusal('queue_full', 'full').code)).toBe(429);
    expect(approvalRefusalStatus('something_new')).toBe(400);
  });
});
