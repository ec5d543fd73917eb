// oidc-provider's storage adapter on drizzle: one table (oidc_payloads) for every model, except Client,
// which is read from Portico's own clients table. Models whose id is a bearer secret are stored under its hash,
// without it in the payload, and found by the hash of the presented value (lib/oidc/stored-ids.ts).
import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import { preparedQuery, type Database } from '../db/client';
import { grantBindings, oidcPayloads } from '../db/schema';
import { loadClient } from '../clients/client-metadata';
import { AGENT_CLIENT_ID, loadAgentClient } from '../clients/agent-clients';
import type { OutboundPolicy } from '../http/outbound';
import { endGrants } from '../grants';
import { announceSessionEndings, endingsOfGrants, endingsOfSessionPayloads } from '../grants/logout-notices';
import { currentProviderContext, noteClientSecrets, noteRefreshTokenRotated } from './request-scope';
import { openReference, referenceTo, storablePayload, storedHashed, storedIdOf } from './stored-ids';
import { isStorableText } from '../util/storable-text';

function notExpired() {
  return or(isNull(oidcPayloads.expiresAt), gt(oidcPayloads.expiresAt, sql`now()`));
}

/**
 * A CIBA request or a device code that expired is still found for a while (oidc-provider checks `exp` itself), so
 * that a client polling it hears expired_token (CIBA Core §11, RFC 8628 §3.5) rather than invalid_grant.
 */
const POLLED_KINDS = new Set(['BackchannelAuthenticationRequest', 'DeviceCode']);
/** How long after its expiry a polled model is still found (and kept by the sweeper, lib/notifications/sweeper.ts). */
export const POLLED_KINDS_FINDABLE_MINUTES = 10;
function findable(kind: string) {
  return POLLED_KINDS.has(kind) ? or(isNull(oidcPayloads.expiresAt), gt(oidcPayloads.expiresAt, sql`now() - make_interval(mins => ${POLLED_KINDS_FINDABLE_MINUTES})`)) : notExpired();
}

function withConsumed(payload: Record<string, unknown>, consumedAt: Date | null): AdapterPayload {
  return (consumedAt ? { ...payload, consumed: Math.floor(consumedAt.getTime() / 1000) } : payload) as AdapterPayload;
}


/** The indexed columns of a stored payload, copied out of it (one mapping for every write). */
export function payloadColumns(kind: string, payload: AdapterPayload, expiresIn?: number) {
  return {
    payload: storablePayload(kind, payload) as Record<string, unknown>,
    grantId: payload.grantId ?? null,
    accountId: payload.accountId ?? null,
    clientId: payload.clientId ?? null,
    uid: payload.uid ?? null,
    userCode: payload.userCode ?? null,
    expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
  };
}

const placeholder = (name: string) => sql.placeholder(name);

/** The columns payloadColumns fills, as placeholders of a prepared statement. */
export const columnPlaceholders = {
  payload: placeholder('payload'),
  grantId: placeholder('grantId'),
  accountId: placeholder('accountId'),
  clientId: placeholder('clientId'),
  uid: placeholder('uid'),
  userCode: placeholder('userCode'),
  // Bare, without the column's encoder: drizzle would map a null through it (and a timestamp's encoder fails on null).
  expiresAt: sql`${placeholder('expiresAt')}`,
};

/** An upsert's update takes the row it tried to insert (no second copy of every parameter). */
const fromExcluded = {
  payload: sql`excluded.payload`,
  grantId: sql`excluded.grant_id`,
  accountId: sql`excluded.account_id`,
  clientId: sql`excluded.client_id`,
  uid: sql`excluded.uid`,
  userCode: sql`excluded.user_code`,
  expiresAt: sql`excluded.expires_at`,
};

export interface AdapterOptions {
  clientSecretPlaceholder: string;
  /**
   * Seconds during which a just-rotated refresh token may be presented again. MCP clients that run several
   * processes (or retry after a lost response) replay a token that another of them has just rotated; inside this
   * interval that replay succeeds and gets its own new token. After it, reuse is treated as theft and revokes the
   * whole grant (RFC 9700 §4.14.2).
   */
  refreshTokenReuseGraceSeconds: number;
  /** Signs the references to hashed rows the adapter hands out (a device code found by its user code). */
  referenceKey: Uint8Array;
  /** Where an agent's published key set may be fetched from (lib/clients/agent-clients.ts); default: public addresses only. */
  outbound?: OutboundPolicy;
}

export function createAdapterClass(db: () => Database, options: AdapterOptions) {
  const graceSeconds = options.refreshTokenReuseGraceSeconds;
  const withinGrace = (kind: string) =>
    kind === 'RefreshToken' && graceSeconds > 0
      ? sql<boolean>`(${oidcPayloads.consumedAt} > now() - make_interval(secs => ${graceSeconds}))`
      : sql<boolean>`false`;

  /**
   * Where a presented id is stored: its hash, or — outside the token endpoint, where only the adapter's own references
   * come back (lib/oidc/stored-ids.ts `referenceTo`) — the row a reference names.
   */
  const storedIdFor = (kind: string, id: string): string => {
    if (storedHashed(kind) && id.startsWith('ref.') && currentProviderContext()?.oidc?.route !== 'token') {
      const referenced = openReference(id, options.referenceKey);
      if (referenced) return referenced;
    }
    return storedIdOf(kind, id);
  };

  return class PorticoAdapter implements Adapter {
    constructor(private readonly kind: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const database = db();
      const upsert = preparedQuery(database, `adapter.upsert`, () =>
        database
          .insert(oidcPayloads)
          .values({ id: placeholder('id'), kind: placeholder('kind'), ...columnPlaceholders })
          .onConflictDoUpdate({ target: [oidcPayloads.kind, oidcPayloads.id], set: fromExcluded })
          .prepare('adapter_upsert'),
      );
      const values = payloadColumns(this.kind, payload, expiresIn);
      // PostgreSQL's jsonb holds no NUL character: a request parameter carrying one (an authorization request's
      // login_hint, say) is refused as the bad input it is, in the protocol's shape, instead of failing the write.
      if (JSON.stringify(values.payload).includes('\\u0000')) throw new errors.InvalidRequest('request parameters must not contain NUL characters');
      await upsert.execute({ id: storedIdFor(this.kind, id), kind: this.kind, ...values, expiresAt: values.expiresAt?.toISOString() ?? null });
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      // A value PostgreSQL text cannot hold (NUL, half a surrogate pair) names nothing stored: not found, rather than a
      // statement that fails (oidc-provider then answers the protocol's own error: invalid_client, invalid_grant, …).
      if (!isStorableText(id)) return undefined;
      if (this.kind === 'Client') {
        // An agent's own client (client credentials with private_key_jwt): its keys, never a stored client row.
        if (AGENT_CLIENT_ID.test(id)) return (await loadAgentClient(db(), id, options.outbound ?? { allowLoopback: false }, currentProviderContext()?.oidc?.params?.client_assertion)) as AdapterPayload | undefined;
        const loaded = await loadClient(db(), id, options.clientSecretPlaceholder);
        // The token endpoint authenticates the client right after finding it: it compares with these, no second query.
        if (loaded) noteClientSecrets(id, loaded.secretHashesValidNow);
        return loaded?.metadata as AdapterPayload | undefined;
      }
      const found = await this.findWhere('id', storedIdFor(this.kind, id));
      // The id was left out of the stored payload: the presented value is it.
      return found && storedHashed(this.kind) ? { ...found, jti: id } : found;
    }

    /**
     * A session found by its uid (a token bound to its session, an interaction's session check) comes without its id,
     * which only its cookie holds: those callers read it and never save it.
     */
    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return isStorableText(uid) ? this.findWhere('uid', uid) : undefined;
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      if (!isStorableText(userCode)) return undefined;
      const found = await this.findWhereWithId('userCode', userCode);
      // The device code's value is not stored: it is named by a reference (see storedIdFor).
      return found ? { ...found.payload, jti: referenceTo(found.id, options.referenceKey) } : undefined;
    }

    private async findWhereWithId(column: 'userCode', value: string): Promise<{ id: string; payload: AdapterPayload } | undefined> {
      const [row] = await db()
        .select({ id: oidcPayloads.id, payload: oidcPayloads.payload, consumedAt: oidcPayloads.consumedAt })
        .from(oidcPayloads)
        .where(and(eq(oidcPayloads.kind, this.kind), eq(oidcPayloads[column], value), findable(this.kind)))
        .limit(1);
      return row ? { id: row.id, payload: withConsumed(row.payload, row.consumedAt) } : undefined;
    }

    private async findWhere(column: 'id' | 'uid' | 'userCode', value: string): Promise<AdapterPayload | undefined> {
      const database = db();
      const find = preparedQuery(database, `adapter.find.${this.kind}.${column}.grace${graceSeconds}`, () =>
        database
          .select({ payload: oidcPayloads.payload, consumedAt: oidcPayloads.consumedAt, inGrace: withinGrace(this.kind) })
          .from(oidcPayloads)
          .where(and(eq(oidcPayloads.kind, this.kind), eq(oidcPayloads[column], placeholder('value')), findable(this.kind)))
          .limit(1)
          .prepare(`adapter_find_${this.kind}_${column}_${graceSeconds}`),
      );
      const [row] = await find.execute({ value });
      if (!row) return undefined;
      // A refresh token consumed moments ago is shown as unconsumed: the replay is allowed (see AdapterOptions).
      return withConsumed(row.payload, row.inGrace ? null : row.consumedAt);
    }

    /**
     * Single use, enforced by the database: only the first of concurrent consumers flips consumed_at.
     * oidc-provider checks `consumed` after a read and consumes later, so two parallel redemptions could both pass
     * its check; the loser lands here, and is treated like the replay it is (RFC 6749 §4.1.2, RFC 9700 §4.5.3):
     * the grant and every token issued from it are revoked. A refresh token inside its reuse grace interval is the
     * exception: it may be consumed again.
     */
    async consume(id: string): Promise<void> {
      const database = db();
      const consume = preparedQuery(database, `adapter.consume.${this.kind}`, () =>
        database
          .update(oidcPayloads)
          .set({ consumedAt: sql`now()` })
          .where(and(eq(oidcPayloads.kind, this.kind), eq(oidcPayloads.id, placeholder('id')), isNull(oidcPayloads.consumedAt)))
          .returning({ id: oidcPayloads.id })
          .prepare(`adapter_consume_${this.kind}`),
      );
      const claimed = await consume.execute({ id: storedIdFor(this.kind, id) });
      if (claimed.length === 1) {
        if (this.kind === 'RefreshToken') noteRefreshTokenRotated(id);
        return;
      }
      const [row] = await db()
        .select({ grantId: oidcPayloads.grantId, inGrace: withinGrace(this.kind) })
        .from(oidcPayloads)
        .where(and(eq(oidcPayloads.kind, this.kind), eq(oidcPayloads.id, storedIdFor(this.kind, id))))
        .limit(1);
      if (row?.inGrace) {
        // The replay gets the successor the first exchange created, not a chain of its own.
        noteRefreshTokenRotated(id);
        return;
      }
      if (row?.grantId) await endGrants(db(), [row.grantId]);
      throw new errors.InvalidGrant(`${this.kind} already consumed`);
    }

    async destroy(id: string): Promise<void> {
      // oidc-provider ends a grant itself when a refresh token is reused after its grace interval (theft) or a code
      // is replayed: the apps signed in through it hear so, like every other ending (lib/grants/logout-notices.ts).
      // A client revoking its own token (RFC 7009) asked for it and is not told back. A sign-out (RP-initiated
      // logout) ends the grants of the session's apps: each hears it as the person signing out, once — the logout
      // token its backchannelLogout queued (provider-overrides.ts, deviation 8) already waits under the same key.
      const route = currentProviderContext()?.oidc?.route;
      if (this.kind === 'Grant' && route !== 'revocation') {
        await announceSessionEndings(db(), await endingsOfGrants(db(), [id]), route === 'end_session_confirm' ? 'signed_out' : 'grant_ended');
      }
      // The sign-out ends the session itself too: every app it signed in to hears it — also one whose grant outlives
      // the sign-out (offline_access) and which listens by a Shared Signals stream rather than a logout URI, which
      // upstream's backchannelLogout never reaches.
      if (this.kind === 'Session' && route === 'end_session_confirm') {
        const session = await this.find(id);
        if (session) await announceSessionEndings(db(), endingsOfSessionPayloads([session as Record<string, unknown>]), 'signed_out');
      }
      await db().delete(oidcPayloads).where(and(eq(oidcPayloads.kind, this.kind), eq(oidcPayloads.id, storedIdFor(this.kind, id))));
      // A grant's binding (to an agent, an app) goes with it, as lib/grants ends them.
      if (this.kind === 'Grant') await db().delete(grantBindings).where(eq(grantBindings.grantId, id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db().delete(oidcPayloads).where(and(eq(oidcPayloads.kind, this.kind), eq(oidcPayloads.grantId, grantId)));
    }
  };
}
