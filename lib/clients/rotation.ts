// Client secret rotation without downtime: start → both the old and the new secret authenticate during an overlap
// window → complete (the old one stops) or cancel (the new one is discarded). Each step is a compare-and-swap on
// the client's generation: of two concurrent steps exactly one wins, and a step from someone who has not seen the
// latest state (a stale generation) is refused instead of undoing a rotation in progress.
import { and, desc, eq, isNull, sql, type SQL } from 'drizzle-orm';
import type { Database, Queryable } from '../db/client';
import { clientSecrets, clients } from '../db/schema';
import { generateClientSecret, hashClientSecret } from './secrets';
import { localized, textIn, type LocalizedText } from '../i18n/catalogs';

export const DEFAULT_OVERLAP_SECONDS = 24 * 60 * 60;
export const MAX_OVERLAP_SECONDS = 30 * 24 * 60 * 60;

/** `message` is English (the CLI, MCP); `text` its catalog key, for the console. */
export type RotationRefusal = { ok: false; reason: 'conflict' | 'not_rotating' | 'already_rotating' | 'not_confidential'; message: string; text: LocalizedText };

function refusal(reason: RotationRefusal['reason'], text: LocalizedText): RotationRefusal {
  return { ok: false, reason, message: textIn(text), text };
}

export interface CredentialState {
  generation: number;
  /** When the overlap of a rotation in progress ends; null when none is (an elapsed window counts as done). */
  rotationEndsAt: Date | null;
  /** Secrets valid now or later: one, or two during an overlap. */
  secrets: { generation: number; validFrom: Date; validUntil: Date | null }[];
}

export async function credentialState(db: Queryable, clientId: string): Promise<CredentialState | undefined> {
  const [client] = await db
    .select({ generation: clients.secretGeneration, rotationEndsAt: clients.rotationEndsAt, rotating: sql<boolean>`coalesce(${clients.rotationEndsAt} > now(), false)` })
    .from(clients)
    .where(and(eq(clients.id, clientId), eq(clients.type, 'confidential')))
    .limit(1);
  if (!client || client.generation === null) return undefined;
  if (!client.rotating) client.rotationEndsAt = null;
  const secrets = await db
    .select({ generation: clientSecrets.generation, validFrom: clientSecrets.validFrom, validUntil: clientSecrets.validUntil })
    .from(clientSecrets)
    .where(and(eq(clientSecrets.clientId, clientId), sql`(${clientSecrets.validUntil} is null or ${clientSecrets.validUntil} > now())`))
    .orderBy(desc(clientSecrets.generation));
  return { generation: client.generation, rotationEndsAt: client.rotationEndsAt, secrets };
}

const conflict = (): RotationRefusal => refusal('conflict', localized('refusals.rotation.conflict'));

/** Moves the generation from `expected` to `expected + 1` if nobody else did; the row lock serializes the step. */
async function advance(tx: Queryable, clientId: string, expected: number, rotationEndsAt: SQL | null) {
  const [row] = await tx
    .update(clients)
    .set({ secretGeneration: expected + 1, rotationEndsAt })
    .where(and(eq(clients.id, clientId), eq(clients.type, 'confidential'), eq(clients.secretGeneration, expected)))
    .returning({ generation: clients.secretGeneration, rotationEndsAt: clients.rotationEndsAt });
  return row;
}

/**
 * The client row, locked for this transaction, with the rotation end as text: timestamps are compared inside the
 * database at full (microsecond) precision, never after a round trip through a JavaScript Date.
 */
async function lockClient(tx: Queryable, clientId: string) {
  const [row] = await tx
    .select({
      rotationEndsAt: sql<string | null>`${clients.rotationEndsAt}::text`,
      // A window that has ended is a completed rotation: the old secret has stopped, the new one is the only one.
      rotating: sql<boolean>`coalesce(${clients.rotationEndsAt} > now(), false)`,
    })
    .from(clients)
    .where(eq(clients.id, clientId))
    .for('update');
  return row;
}

const ofClient = (clientId: string) => sql`(select ${clients.rotationEndsAt} from ${clients} where ${clients.id} = ${clientId})`;

export async function startRotation(
  db: Database,
  clientId: string,
  expectedGeneration: number,
  overlapSeconds = DEFAULT_OVERLAP_SECONDS,
): Promise<{ ok: true; secret: string; generation: number; rotationEndsAt: Date } | RotationRefusal> {
  const overlap = Math.min(Math.max(Math.floor(overlapSeconds), 60), MAX_OVERLAP_SECONDS);
  const secret = generateClientSecret();
  return db.transaction(async (tx) => {
    const current = await lockClient(tx, clientId);
    if (!current) return refusal('not_confidential', localized('refusals.rotation.noSecret'));
    const advanced = await advance(tx, clientId, expectedGeneration, sql`now() + make_interval(secs => ${overlap})`);
    if (!advanced) return conflict();
    if (current.rotating) throw new RotationAbort(refusal('already_rotating', localized('refusals.rotation.inProgress')));
    const endsAt = advanced.rotationEndsAt!;
    // The old secret(s) stop by themselves when the window ends, even if nobody completes the rotation.
    await tx
      .update(clientSecrets)
      .set({ validUntil: ofClient(clientId) })
      .where(and(eq(clientSecrets.clientId, clientId), isNull(clientSecrets.validUntil)));
    await tx.insert(clientSecrets).values({ clientId, generation: advanced.generation!, secretHash: hashClientSecret(secret) });
    return { ok: true, secret, generation: advanced.generation!, rotationEndsAt: endsAt } as const;
  }).catch(unwrapAbort);
}

/** Ends the overlap now: only the new secret authenticates from here on. */
export async function completeRotation(db: Database, clientId: string, expectedGeneration: number): Promise<{ ok: true; generation: number } | RotationRefusal> {
  return db.transaction(async (tx) => {
    const current = await lockClient(tx, clientId);
    const advanced = await advance(tx, clientId, expectedGeneration, null);
    if (!advanced) return conflict();
    if (!current?.rotationEndsAt) throw new RotationAbort(refusal('not_rotating', localized('refusals.rotation.notRotating')));
    await tx
      .update(clientSecrets)
      .set({ validUntil: sql`least(${clientSecrets.validUntil}, now())` })
      .where(and(eq(clientSecrets.clientId, clientId), eq(clientSecrets.validUntil, sql`${current.rotationEndsAt}::timestamptz`)));
    return { ok: true, generation: advanced.generation! } as const;
  }).catch(unwrapAbort);
}

/** Discards the new secret; the old one authenticates as before, with no end. */
export async function cancelRotation(db: Database, clientId: string, expectedGeneration: number): Promise<{ ok: true; generation: number } | RotationRefusal> {
  return db.transaction(async (tx) => {
    const current = await lockClient(tx, clientId);
    const advanced = await advance(tx, clientId, expectedGeneration, null);
    if (!advanced) return conflict();
    if (!current?.rotationEndsAt) throw new RotationAbort(refusal('not_rotating', localized('refusals.rotation.notRotating')));
    // Never bring back a secret whose window has ended: that rotation is complete (and the old secret may be the
    // very one being replaced because it leaked).
    if (!current.rotating) throw new RotationAbort(refusal('not_rotating', localized('refusals.rotation.windowEnded')));
    // The new secret is the one this rotation created: the only one without an end.
    await tx.delete(clientSecrets).where(and(eq(clientSecrets.clientId, clientId), isNull(clientSecrets.validUntil)));
    await tx
      .update(clientSecrets)
      .set({ validUntil: null })
      .where(and(eq(clientSecrets.clientId, clientId), eq(clientSecrets.validUntil, sql`${current.rotationEndsAt}::timestamptz`)));
    return { ok: true, generation: advanced.generation! } as const;
  }).catch(unwrapAbort);
}

/** Rolls the transaction back (nothing of the step is kept) while answering with a refusal. */
class RotationAbort extends Error {
  constructor(readonly refusal: RotationRefusal) {
    super(refusal.message);
  }
}

function unwrapAbort(error: unknown): RotationRefusal {
  if (error instanceof RotationAbort) return error.refusal;
  throw error;
}
