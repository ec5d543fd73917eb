// oidc-provider's storage adapter on drizzle: one table (oidc_payloads) for every model, except Client,
// which is read from Portico's own clients table.
import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import type { Database } from '../db/client';
import { oidcPayloads } from '../db/schema';
import { loadClientMetadata } from '../clients/client-metadata';

function notExpired() {
  return or(isNull(oidcPayloads.expiresAt), gt(oidcPayloads.expiresAt, sql`now()`));
}

function withConsumed(payload: Record<string, unknown>, consumedAt: Date | null): AdapterPayload {
  return (consumedAt ? { ...payload, consumed: Math.floor(consumedAt.getTime() / 1000) } : payload) as AdapterPayload;
}

/** Deletes a grant and everything issued from it (codes, tokens) in one statement. */
export async function revokeWholeGrant(db: Database, grantId: string): Promise<void> {
  await db
    .delete(oidcPayloads)
    .where(or(eq(oidcPayloads.grantId, grantId), and(eq(oidcPayloads.kind, 'Grant'), eq(oidcPayloads.id, grantId))));
}

export function createAdapterClass(db: () => Database, clientSecretPlaceholder: string) {
  return class PorticoAdapter implements Adapter {
    constructor(private readonly kind: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
      const values = {
        payload: payload as Record<string, unknown>,
        grantId: payload.grantId ?? null,
        uid: payload.uid ?? null,
        userCode: payload.userCode ?? null,
        expiresAt,
      };
      await db()
        .insert(oidcPayloads)
        .values({ id, kind: this.kind, ...values })
        .onConflictDoUpdate({ target: [oidcPayloads.kind, oidcPayloads.id], set: values });
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.kind === 'Client') {
        return (await loadClientMetadata(db(), id, clientSecretPlaceholder)) as AdapterPayload | undefined;
      }
      return this.findWhere(eq(oidcPayloads.id, id));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return this.findWhere(eq(oidcPayloads.uid, uid));
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return this.findWhere(eq(oidcPayloads.userCode, userCode));
    }

    private async findWhere(condition: ReturnType<typeof eq>): Promise<AdapterPayload | undefined> {
      const [row] = await db()
        .select({ payload: oidcPayloads.payload, consumedAt: oidcPayloads.consumedAt })
        .from(oidcPayloads)
        .where(and(eq(oidcPayloads.kind, this.kind), condition, notExpired()))
        .limit(1);
      return row ? withConsumed(row.payload, row.consumedAt) : undefined;
    }

    /**
     * Single use, enforced by the database: only the first of concurrent consumers flips consumed_at.
     * oidc-provider checks `consumed` after a read and consumes later, so two parallel redemptions could both pass
     * its check; the loser lands here, and is treated like the replay it is (RFC 6749 §4.1.2, RFC 9700 §4.5.3):
     * the grant and every token issued from it are revoked.
     */
    async consume(id: string): Promise<void> {
      const claimed = await db()
        .update(oidcPayloads)
        .set({ consumedAt: sql`now()` })
        .where(and(eq(oidcPayloads.kind, this.kind), eq(oidcPayloads.id, id), isNull(oidcPayloads.consumedAt)))
        .returning({ id: oidcPayloads.id });
      if (claimed.length === 1) return;
      const [row] = await db()
        .select({ grantId: oidcPayloads.grantId })
        .from(oidcPayloads)
        .where(and(eq(oidcPayloads.kind, this.kind), eq(oidcPayloads.id, id)))
        .limit(1);
      if (row?.grantId) await revokeWholeGrant(db(), row.grantId);
      throw new errors.InvalidGrant(`${this.kind} already consumed`);
    }

    async destroy(id: string): Promise<void> {
      await db().delete(oidcPayloads).where(and(eq(oidcPayloads.kind, this.kind), eq(oidcPayloads.id, id)));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db().delete(oidcPayloads).where(and(eq(oidcPayloads.kind, this.kind), eq(oidcPayloads.grantId, grantId)));
    }
  };
}
