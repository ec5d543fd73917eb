// Sign-in events in the audit log. Where an organization is concerned (an app's sign-in), the event goes to its
// chain; console and central sign-ins go to the installation's. A failure records only the address that was typed,
// never whether an account has it: an organization's admins must not learn which emails have Portico accounts.
import { and, desc, eq, like } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { auditEvents } from '../db/schema';
import { recordAuditEvent } from '../audit/events';
import type { ThrottledPasswordResult } from './factors/throttled-password-check';
import type { User } from './users';
import { normalizeEmail } from '../util/email';

export type SignInSurface = 'console' | 'central' | 'app' | 'invitation';

export interface SignInContext {
  surface: SignInSurface;
  ip: string;
  orgId?: string | null;
  appId?: string | null;
  clientId?: string | null;
  /** What the person signed in to, in words (an app's name), for their own list of sign-ins. */
  target?: string;
  /** The enterprise connection the person came through (its name), when not a Portico credential. */
  via?: string;
}

export async function recordSignInSuccess(db: Queryable, context: SignInContext, user: Pick<User, 'id' | 'email'>): Promise<void> {
  await recordAuditEvent(db, {
    orgId: context.orgId ?? null,
    actor: { type: 'person', id: user.id, label: user.email, ip: context.ip },
    action: 'sign_in.succeeded',
    subject: { type: 'person', id: user.id, label: user.email },
    appId: context.appId ?? null,
    clientId: context.clientId ?? null,
    details: { surface: context.surface, ...(context.target ? { target: context.target } : {}), ...(context.via ? { via: context.via } : {}) },
  });
}

/** A refused or throttled attempt; the typed address is a label only (no person id). */
export async function recordSignInRefusal(db: Queryable, context: SignInContext, typedEmail: string, result: Exclude<ThrottledPasswordResult, { ok: true }> | { ok: false; reason: 'not_a_member' | 'second_factor' }): Promise<void> {
  if (result.reason === 'throttled' && !result.firstInWindow) return;
  await recordAuditEvent(db, {
    orgId: context.orgId ?? null,
    actor: { type: 'person', label: typedEmail.slice(0, 320), ip: context.ip },
    action: result.reason === 'throttled' ? 'sign_in.throttled' : 'sign_in.failed',
    subject: { type: 'email', id: normalizeEmail(typedEmail).slice(0, 320), label: typedEmail.slice(0, 320) },
    appId: context.appId ?? null,
    clientId: context.clientId ?? null,
    // One word for every refusal: "wrong password", "no such account" and "not a member" look alike here.
    details: { surface: context.surface },
  });
}

export interface RecentSignIn {
  at: Date;
  surface: string;
  target?: string;
  ip: string | null;
}

/** The person's latest successful sign-ins, everywhere (the account page). */
export async function listRecentSignIns(db: Queryable, userId: string, limit = 10): Promise<RecentSignIn[]> {
  const rows = await db
    .select({ at: auditEvents.occurredAt, details: auditEvents.details, ip: auditEvents.ip })
    .from(auditEvents)
    .where(and(eq(auditEvents.subjectId, userId), eq(auditEvents.subjectType, 'person'), like(auditEvents.action, 'sign_in.%')))
    .orderBy(desc(auditEvents.id))
    .limit(limit);
  return rows.map((row) => ({
    at: row.at,
    surface: String(row.details.surface ?? 'unknown'),
    target: typeof row.details.target === 'string' ? row.details.target : undefined,
    ip: row.ip,
  }));
}
