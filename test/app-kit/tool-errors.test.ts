// What a caller reads when a tool fails: a tool's own refusal in its words; an error from the system beneath it (a
// database connection closed or refused, a SQLSTATE) as "a temporary error", since its message names hosts and ports.
// The audit event keeps a system error's code, never its message (hosts, SQL, parameters).
import { describe, expect, it, vi } from 'vitest';
import { createConfirmationGate, memoryConfirmationStore } from '../../app-kit/risk';
import { defineTool, runGatedTool, type ToolEvent } from '../../app-kit/tools';

const token = { subject: 'person-1', clientId: 'client-1', scopes: ['mcp'], expiresAt: 4_000_000_000, claims: {} };

async function failWith(error: Error) {
  const tool = defineTool({ name: 'lookup', description: 'Looks something up.', riskLevel: 'caution', inputSchema: {}, run: async () => { throw error; } });
  const events: ToolEvent[] = [];
  const run = await runGatedTool(tool as never, {}, { token, gate: createConfirmationGate({ store: memoryConfirmationStore() }), level: 'caution', extra: {}, onEvent: (event) => void events.push(event) });
  const text = run.result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  return { text, audited: events.find((event) => event.outcome === 'failed')?.error };
}

describe('a failing tool', () => {
  it('hides a connection error behind "a temporary error", and audits the real one', async () => {
    const closed = Object.assign(new Error('write CONNECTION_CLOSED 10.0.0.5:5432'), { code: 'CONNECTION_CLOSED' });
    const refused = new Error('query failed', { cause: Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' }) });
    const sqlState = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    for (const [error, code] of [[closed, 'CONNECTION_CLOSED'], [refused, 'ECONNREFUSED'], [sqlState, '57P01']] as const) {
      const { text, audited } = await failWith(error);
      expect(text).toBe('"lookup" failed: a temporary error; try again');
      // The audit chain is immutable and shown to admins: the code, not the message with its hosts or SQL.
      expect(audited).toBe(`system error ${code}`);
    }
  });

  it('calls a permanent system error internal (no retry will help), and shows none of its SQL', async () => {
    const unique = Object.assign(new Error('Failed query: insert into "invoices" values ($1) params: 4111111111111111'), { code: '23505' });
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const { text, audited } = await failWith(unique);
      expect(text).toBe('"lookup" failed: an internal error');
      expect(audited).toBe('system error 23505');
      // The operator's log names the tool and the code, so that "an internal error" can be looked into; no SQL.
      expect(logged.mock.calls.map((call) => call.join(' '))).toEqual(['lookup failed: system error 23505']);
    } finally {
      logged.mockRestore();
    }
  });

  it('keeps the words of a refusal of its own, codes and all', async () => {
    const refusal = Object.assign(new Error('The queue of requests for this app is full.'), { code: 'queue_full' });
    expect((await failWith(refusal)).text).toBe('"lookup" failed: The queue of requests for this app is full.');
    expect((await failWith(new Error('No such invoice.'))).text).toBe('"lookup" failed: No such invoice.');
  });
});
