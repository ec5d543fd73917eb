// A client's back-channel logout registration (OpenID Connect Back-Channel Logout 1.0 §2.2): where Portico sends
// logout tokens and whether the client needs the session id in them. Kept in the client's metadata, which
// oidc-provider reads as registered; the outbox reads it when an ending is queued (lib/grants/logout-notices.ts).
// The app's delivery log is read here too.
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { clients, outboundDeliveries, users } from '../db/schema';
import type { LogoutReason } from '../grants/logout-notices';
import { validateRedirectUri, type Validated } from './validation';

export interface BackchannelLogoutSetting {
  uri: string;
  /** backchannel_logout_session_required: every token names the session (`sid`); endings without one are not sent. */
  sessionRequired: boolean;
}

/**
 * §2.2: an absolute URL, https (http only on a loopback host, for development: the outbound guard still decides at
 * delivery), with no fragment; the rules of a redirect URI (one spelling, no credentials) hold too.
 */
export function validateBackchannelLogoutUri(value: string): Validated<string> {
  return validateRedirectUri(value);
}

export async function backchannelLogoutOf(db: Queryable, clientId: string): Promise<BackchannelLogoutSetting | undefined> {
  const [row] = await db.select({ metadata: clients.metadata }).from(clients).where(eq(clients.id, clientId)).limit(1);
  const uri = row?.metadata.backchannel_logout_uri;
  if (typeof uri !== 'string') return undefined;
  return { uri, sessionRequired: row?.metadata.backchannel_logout_session_required === true };
}

/** Registers (or replaces) the client's back-channel logout URI, or removes it (null). False when nothing changed. */
export async function setBackchannelLogout(db: Queryable, clientId: string, setting: BackchannelLogoutSetting | null): Promise<boolean> {
  const current = await backchannelLogoutOf(db, clientId);
  if (setting === null ? current === undefined : current?.uri === setting.uri && current.sessionRequired === setting.sessionRequired) return false;
  const metadata =
    setting === null
      ? sql`${clients.metadata} - 'backchannel_logout_uri' - 'backchannel_logout_session_required'`
      : sql`${clients.metadata} || jsonb_build_object('backchannel_logout_uri', ${setting.uri}::text, 'backchannel_logout_session_required', ${setting.sessionRequired}::boolean)`;
  const changed = await db.update(clients).set({ metadata }).where(eq(clients.id, clientId)).returning({ id: clients.id });
  return changed.length === 1;
}

export interface LogoutDelivery {
  id: string;
  createdAt: Date;
  reason: LogoutReason;
  /** The person the token was about (their address when they still have an account). */
  personEmail: string | null;
  personId: string;
  /** The token named the session. */
  withSession: boolean;
  attempts: number;
  nextAttemptAt: Date;
  deliveredAt: Date | null;
  failedAt: Date | null;
  lastStatus: number | null;
  lastError: string | null;
}

/** The client's logout token deliveries, newest first. */
export async function listLogoutDeliveries(db: Queryable, clientId: string, limit = 20): Promise<LogoutDelivery[]> {
  const rows = await db
    .select({
      id: outboundDeliveries.id,
      createdAt: outboundDeliveries.createdAt,
      reason: outboundDeliveries.eventType,
      personId: sql<string>`${outboundDeliveries.payload}->>'sub'`,
      withSession: sql<boolean>`${outboundDeliveries.payload} ? 'sid'`,
      personEmail: users.email,
      attempts: outboundDeliveries.attempts,
      nextAttemptAt: outboundDeliveries.nextAttemptAt,
      deliveredAt: outboundDeliveries.deliveredAt,
      failedAt: outboundDeliveries.failedAt,
      lastStatus: outboundDeliveries.lastStatus,
      lastError: outboundDeliveries.lastError,
    })
    .from(outboundDeliveries)
    .leftJoin(users, sql`${users.id}::text = ${outboundDeliveries.payload}->>'sub'`)
    .where(and(eq(outboundDeliveries.clientId, clientId), eq(outboundDeliveries.channel, 'logout_token')))
    .orderBy(desc(outboundDeliveries.createdAt))
    .limit(limit);
  return rows.map((row) => ({ ...row, reason: row.reason as LogoutReason }));
}
