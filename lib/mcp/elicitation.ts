// Elicitation for approval requests (MCP 2025-11-25 §Elicitation), across instances. Portico sends
// `elicitation/create` on the open response stream of the tool call; the client answers with a separate POST that
// may reach any instance, which writes the answer to `mcp_elicitations`; the waiting call reads it there. What the
// client answers can keep or withdraw the person's own request, never approve it: approval is an operator's, in the
// central or the CLI.
import { randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { mcpElicitations } from '../db/schema';
import { translator } from '../i18n/catalogs';

export type ElicitationOutcome = 'accept' | 'decline' | 'cancel' | 'error' | 'timeout';
export type ElicitationIntent = 'send' | 'withdraw';

export interface ElicitationAnswer {
  outcome: ElicitationOutcome;
  /** Form mode: what the person chose. */
  intent?: ElicitationIntent;
}

/** What an approval elicitation carries: the request id, its type and resource, nothing else. */
export interface ApprovalElicitation {
  mode: 'url' | 'form';
  approvalRequestId: string;
  message: string;
  /** URL mode: the central's page for the request (not pre-authenticated: the operator signs in there). */
  url?: string;
  /** The language of the person asked (the message is in it already); form mode's choices are written in it. */
  locale?: string;
}

export type Elicit = (elicitation: ApprovalElicitation) => Promise<ElicitationAnswer>;

/** Form mode asks for intent only: an enum, never a password, a token or any other credential. Its titles are the person's words, in their language. */
export function intentSchema(locale = 'en') {
  const t = translator(locale, 'mcp.elicitation');
  return {
    type: 'object',
    properties: {
      intent: {
        type: 'string',
        title: t('intentTitle'),
        oneOf: [
          { const: 'send', title: t('send') },
          { const: 'withdraw', title: t('withdraw') },
        ],
      },
    },
    required: ['intent'],
  } as const;
}

const ELICITATION_ID = /^eli_[A-Za-z0-9_-]{32}$/;
const POLL_MS = 200;

export interface ElicitationChannel {
  db: Database;
  sessionId: string;
  /** Writes a JSON-RPC message on the tool call's response stream. */
  send(message: Record<string, unknown>): Promise<void>;
  /** How long the call waits for the person (below the clients' usual 60 s request timeout). */
  waitMs: number;
}

export function elicitOver(channel: ElicitationChannel): Elicit {
  return async (elicitation) => {
    const id = `eli_${randomBytes(24).toString('base64url')}`;
    // Expired elicitations are the sweeper's (lib/notifications/sweeper.ts).
    await channel.db.insert(mcpElicitations).values({
      id,
      sessionId: channel.sessionId,
      approvalRequestId: elicitation.approvalRequestId,
      mode: elicitation.mode,
      expiresAt: sql`now() + make_interval(secs => ${Math.ceil(channel.waitMs / 1000) + 60})`,
    });
    const params =
      elicitation.mode === 'url'
        ? { mode: 'url', message: elicitation.message, url: elicitation.url, elicitationId: elicitation.approvalRequestId }
        : { mode: 'form', message: elicitation.message, requestedSchema: intentSchema(elicitation.locale) };
    try {
      await channel.send({ jsonrpc: '2.0', id, method: 'elicitation/create', params });
    } catch {
      return { outcome: 'error' };
    }
    const deadline = Date.now() + channel.waitMs;
    while (Date.now() < deadline) {
      const [row] = await channel.db.select({ outcome: mcpElicitations.outcome, intent: mcpElicitations.intent }).from(mcpElicitations).where(eq(mcpElicitations.id, id));
      if (row?.outcome) return { outcome: row.outcome as ElicitationOutcome, ...(row.intent ? { intent: row.intent as ElicitationIntent } : {}) };
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return { outcome: 'timeout' };
  };
}

/** A JSON-RPC response to one of Portico's elicitations (its id says so). */
export function isElicitationResponse(message: unknown): message is { id: string; result?: unknown; error?: unknown } {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const candidate = message as Record<string, unknown>;
  return !('method' in candidate) && typeof candidate.id === 'string' && ELICITATION_ID.test(candidate.id) && ('result' in candidate || 'error' in candidate);
}

/**
 * Records a client's answer, once, for an elicitation of this same session that is still waiting. Anything but a
 * well-formed accept/decline/cancel counts as an error; only `send` or `withdraw` is kept as the intent.
 */
export async function recordElicitationResponse(db: Database, sessionId: string, message: { id: string; result?: unknown; error?: unknown }): Promise<boolean> {
  let answer: ElicitationAnswer = { outcome: 'error' };
  const result = message.result;
  if (message.error === undefined && typeof result === 'object' && result !== null) {
    const { action, content } = result as { action?: unknown; content?: unknown };
    if (action === 'accept' || action === 'decline' || action === 'cancel') {
      const intent = typeof content === 'object' && content !== null ? (content as { intent?: unknown }).intent : undefined;
      answer = { outcome: action, ...(action === 'accept' && (intent === 'send' || intent === 'withdraw') ? { intent } : {}) };
    }
  }
  const updated = await db
    .update(mcpElicitations)
    .set({ outcome: answer.outcome, intent: answer.intent ?? null, answeredAt: sql`now()` })
    .where(and(eq(mcpElicitations.id, message.id), eq(mcpElicitations.sessionId, sessionId), isNull(mcpElicitations.outcome), gt(mcpElicitations.expiresAt, sql`now()`)))
    .returning({ id: mcpElicitations.id });
  return updated.length === 1;
}
