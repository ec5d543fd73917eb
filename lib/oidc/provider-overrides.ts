// Where Portico adapts oidc-provider's internals. Everything else is configuration, hooks and the adapter.
//
// Upstream: oidc-provider 9.x, lib/models/client.js `compareClientSecret` and lib/shared/client_auth.js.
//
// Deviation 1 — client secrets are verified against hashes, not compared in plaintext.
//   Upstream compares the presented secret with the single plaintext `client_secret` of the client's metadata.
//   Portico stores only SHA-256 hashes of client secrets (client_secrets table) and may hold more than one valid
//   secret per client during a rotation's overlap window. The client metadata therefore carries a random
//   placeholder that nothing can present (lib/clients/client-metadata.ts), and `compareClientSecret` is replaced
//   by a check against the stored hashes (lib/clients/secrets.ts). HS* algorithms are disabled in the provider's
//   configuration, so the placeholder is never used as a symmetric key either.
//
// Upstream: lib/actions/grants/refresh_token.js (rotation) and lib/models/base_model.js `save`.
//
// Deviation 2 — a refresh token family has one head.
//   Upstream rotates by consuming the presented token and saving a new one with a fresh random id. Portico lets a
//   just-rotated token be replayed inside a short grace interval (clients that refresh from several processes),
//   and upstream would give each replay a new, independent successor: the family would fork into chains that all
//   outlive the interval. Here `RefreshToken#save`, when the request is rotating a token (the adapter noted which
//   one it consumed, lib/oidc/request-scope.ts), saves the successor only if that token has none yet (a unique index on
//   rotated_from, so concurrent replays on any instance agree) and otherwise returns the one already saved. The
//   access token of each answer is fresh; the refresh token is the same one. Reuse after the interval still
//   revokes the whole grant (lib/oidc/adapter.ts). Refresh tokens are stored as hashes (lib/oidc/stored-ids.ts), so
//   the successor is kept sealed with a key derived from the token it replaced: the replay presents that token and
//   opens it; the database alone cannot.
//
// Upstream: lib/helpers/grant_authorization.js and lib/actions/grants/refresh_token.js (an access token's scope).
//
// Deviation 3 — an app's access token carries the permissions its subject holds now.
//   Upstream gives a resource-bound access token the requested scopes that the grant and the resource server allow,
//   and nothing when the request named none. Portico intersects that with the person's effective permissions at
//   this moment (teams and direct grants change between refreshes) and reads a request naming none of the app's
//   permissions as "everything the grant allows" (lib/oidc/resource-scope.ts). Here `AccessToken#save` sets the
//   scope of an app's token before upstream saves it; the token response states that scope (RFC 6749 §5.1).
//
// Upstream: lib/models/client.js `includeSid` and lib/helpers/process_response_types.js.
//
// Deviation 4 — every ID token carries `sid`.
//   Upstream puts the session id (`sid`) in ID tokens only for clients registered with a back-channel logout URI that
//   requires it, or when the request's `claims` asks for it. Relying parties need it to tie their session to
//   Portico's: RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0 §2, an ID token hint naming the session)
//   and the logout notices Portico sends (Back-Channel Logout 1.0 §2.4). `includeSid` answers true for every client.
//
// Upstream: lib/actions/grants/ciba.js and device_code.js (the token endpoint's polling grants).
//
// Deviation 5 — polling too fast is answered with slow_down.
//   Upstream answers every poll of a pending CIBA request or device code with authorization_pending, however often it
//   comes. CIBA Core §11 and RFC 8628 §3.5 define slow_down for a client that polls sooner than `interval`. Here the
//   models' `find`, when the token endpoint looks up the request for its own client, records the poll
//   (lib/oidc/poll-pace.ts) and throws slow_down when it came too soon.
//
// Upstream: lib/actions/authorization/client.js `checkClientGrantType`.
//
// Deviation 6 — a client that may not use a grant (CIBA, the device grant, or any grant at the token endpoint) hears
//   unauthorized_client.
//   Upstream answers invalid_request ("… is not allowed for this client") at the backchannel and device authorization
//   endpoints, and at the token endpoint for a grant type the client did not register (RFC 6749 §5.2 names
//   unauthorized_client for that too). CIBA Core §13 and RFC 6749 §5.2 name the error for a client not allowed to
//   use a flow: unauthorized_client. The answer's error code is renamed; its description and status stay.
//
// Upstream: lib/actions/discovery.js.
//
// Deviation 7 — discovery says user codes are not supported at the backchannel endpoint.
//   Upstream announces `backchannel_user_code_parameter_supported: true` whenever CIBA is on. Portico registers every
//   client with `backchannel_user_code_parameter: false` and ignores a `user_code` (lib/oidc/ciba.ts), so its
//   discovery documents say false (CIBA Core §4).
//
// Upstream: lib/models/client.js `backchannelLogout`, called by lib/actions/end_session.js.
//
// Deviation 8 — back-channel logout tokens go through the outbox.
//   Upstream signs a logout token and POSTs it to the client's backchannel_logout_uri during the sign-out request,
//   once: a relying party that is down at that moment never hears it, and the person's browser waits for every
//   app. Portico queues the ending in the outbound outbox instead (lib/grants/logout-notices.ts), in PostgreSQL,
//   where every other way a session ends queues its notices too; the outbox signs and sends it, retrying with
//   backoff (lib/deliveries/channels/logout-token.ts). Upstream's `backchannel.success` event therefore means
//   "queued"; `backchannel.error` means the queueing failed.
//
// Upstream: lib/helpers/client_id_metadata_document.js (a client_id URL whose document cannot be had).
//
// Deviation 9 — every invalid_client at the token endpoint is 401.
//   Upstream answers an unknown client 401, but a client whose metadata document could not be fetched, or whose
//   document's host the installation does not allow, 400 invalid_client. RFC 6749 §5.2 pairs invalid_client with 401,
//   and MCP clients read it as "register again (or fix the document)": the status is made 401 for all of them.
//
// Upstream: lib/actions/code_verification.js and lib/helpers/initialize_app.js `ensureSessionSave`.
//
// Deviation 10 — a code posted to the device verification page without the page's session goes back to the page.
//   Upstream refuses the missing xsrf state, renders the code entry page again with a new xsrf secret in a session
//   that was never saved, and then fails to persist that session: a 500 with a stack trace in the log, for any POST
//   that did not come from the page (a bookmark, a browser that lost its cookie, a probe). Here such a POST, before
//   its body is read, is sent to the page with 303 See Other (RFC 9110 §15.4.4), where the person enters the code
//   on a page that has its session.
//
// Upstream: lib/models/replay_detection.js `unique` (a client assertion's `jti`, lib/shared/jwt_client_auth.js).
//
// Deviation 11 — a client assertion is used once across instances, atomically.
//   Upstream looks the `jti` up and then saves it: two requests presenting one assertion at the same moment (on two
//   instances, or two connections to one) both find nothing and both pass. RFC 7523 §3 (item 7) lets the server
//   refuse a reused `jti`, and agents' own clients (lib/clients/agent-clients.ts) authenticate with assertions a
//   thief could race. Here `unique` is one INSERT … ON CONFLICT DO NOTHING into assertion_uses (the table ID-JAGs
//   and workload tokens use): the first insert wins, every other presentation is refused.
import { and, eq, sql } from 'drizzle-orm';
import { createHash } from 'node:crypto';
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { AdapterPayload } from 'oidc-provider';
import { preparedQuery, type Database } from '../db/client';
import { assertionUses, oidcPayloads } from '../db/schema';
import { matchesSecretHash, verifyClientSecret } from '../clients/secrets';
import { columnPlaceholders, payloadColumns } from './adapter';
import { openSuccessor, sealSuccessor, storedIdOf } from './stored-ids';
import { currentProviderContext, inProviderRequestScope, notedClientSecrets, refreshTokenBeingRotated } from './request-scope';
import { scopeOfAppAccessToken } from './resource-scope';
import { pollTooSoon } from './poll-pace';
import { announceSessionEndings } from '../grants/logout-notices';

interface SavableToken {
  jti?: string;
  remainingTTL?: number;
  generateTokenId(): string;
  getValueAndPayload(): Promise<{ value: string; payload: AdapterPayload }>;
  emit(event: string): void;
  save(): Promise<string>;
}

export function applyProviderOverrides(provider: Provider, db: () => Database, options: { pollIntervalSeconds: number }): void {
  const clientPrototype = provider.Client.prototype as unknown as {
    clientId: string;
    compareClientSecret(actual: string): Promise<boolean>;
    includeSid(): boolean;
    backchannelLogout(sub: string, sid: string | undefined): Promise<void>;
  };
  // Deviation 4.
  clientPrototype.includeSid = () => true;
  // Deviation 8.
  clientPrototype.backchannelLogout = async function queueBackchannelLogout(sub: string, sid: string | undefined) {
    await announceSessionEndings(db(), [{ clientId: this.clientId, accountId: sub, ...(sid ? { sid } : {}) }], 'signed_out');
  };
  clientPrototype.compareClientSecret = async function compareClientSecret(actual: string) {
    if (typeof actual !== 'string' || actual.length === 0 || actual.length > 512) return false;
    // The secrets valid when this request loaded the client (same statement, the database's clock), else asked now.
    const noted = notedClientSecrets(this.clientId);
    return noted ? matchesSecretHash(actual, noted) : verifyClientSecret(db(), this.clientId, actual);
  };

  // Deviations 2 and 3. Each provider request gets a scope of its own: the adapter notes there the refresh token
  // it rotates, and an access token's save finds the request's grant there.
  provider.use((ctx, next) => inProviderRequestScope(ctx as KoaContextWithOIDC, next));
  const refreshPrototype = provider.RefreshToken.prototype as unknown as SavableToken;
  const upstreamSave = refreshPrototype.save;
  refreshPrototype.save = async function saveOneHead(this: SavableToken) {
    const rotatedFrom = refreshTokenBeingRotated();
    if (!rotatedFrom) return upstreamSave.call(this);
    this.jti ??= this.generateTokenId();
    const { value, payload } = await this.getValueAndPayload();
    // One statement in the common case: the unique index on rotated_from lets only the first successor in.
    const database = db();
    const insertSuccessor = preparedQuery(database, 'refresh.successor', () =>
      database
        .insert(oidcPayloads)
        .values({ id: sql.placeholder('id'), kind: 'RefreshToken', ...columnPlaceholders, rotatedFrom: sql.placeholder('rotatedFrom'), successorSealed: sql.placeholder('successorSealed') })
        .onConflictDoNothing({ target: oidcPayloads.rotatedFrom, where: sql`${oidcPayloads.rotatedFrom} IS NOT NULL` })
        .returning({ id: oidcPayloads.id })
        .prepare('refresh_successor'),
    );
    const columns = payloadColumns('RefreshToken', payload, this.remainingTTL);
    const [inserted] = await insertSuccessor.execute({
      id: storedIdOf('RefreshToken', this.jti),
      rotatedFrom: storedIdOf('RefreshToken', rotatedFrom),
      successorSealed: sealSuccessor(this.jti, rotatedFrom),
      ...columns,
      expiresAt: columns.expiresAt?.toISOString() ?? null,
    });
    if (inserted) {
      this.emit('saved');
      return value;
    }
    // A replay: the successor the first exchange saved (committed before the conflict was reported), opened with the
    // replayed token. A successor saved before successors were sealed (migration 0028) cannot be handed out again.
    const [successor] = await db()
      .select({ sealed: oidcPayloads.successorSealed })
      .from(oidcPayloads)
      .where(and(eq(oidcPayloads.kind, 'RefreshToken'), eq(oidcPayloads.rotatedFrom, storedIdOf('RefreshToken', rotatedFrom))))
      .limit(1);
    const opened = await openSuccessor(successor?.sealed ?? null, rotatedFrom);
    if (!opened) throw new errors.InvalidGrant('the successor of this refresh token cannot be handed out again');
    this.jti = opened;
    return opened;
  };

  // Deviation 3.
  const accessPrototype = provider.AccessToken.prototype as unknown as SavableToken & Parameters<typeof scopeOfAppAccessToken>[2];
  const upstreamAccessSave = accessPrototype.save;
  accessPrototype.save = async function saveWithEffectiveScope(this: SavableToken & Parameters<typeof scopeOfAppAccessToken>[2]) {
    const scope = await scopeOfAppAccessToken(db(), currentProviderContext(), this);
    if (scope) this.scope = scope.join(' ') || undefined;
    return upstreamAccessSave.call(this);
  };

  // Deviation 5.
  for (const model of [provider.BackchannelAuthenticationRequest, provider.DeviceCode] as unknown as { find(value: string, options?: object): Promise<{ clientId?: string } | undefined> }[]) {
    const upstreamFind = model.find.bind(model);
    model.find = async function findAtPace(value: string, findOptions?: object) {
      const found = await upstreamFind(value, findOptions);
      const ctx = currentProviderContext();
      if (found && ctx?.oidc?.route === 'token' && found.clientId === ctx.oidc.client?.clientId && (await pollTooSoon(db(), value, options.pollIntervalSeconds))) {
        throw new errors.SlowDown(`poll at most once every ${options.pollIntervalSeconds} seconds`);
      }
      return found;
    };
  }

  // Deviation 11.
  (provider.ReplayDetection as unknown as { unique(iss: string, jti: string, exp: number): Promise<boolean> }).unique = async (iss, jti, exp) => {
    const key = createHash('sha256').update(`client_assertion\n${iss}\n${jti}`).digest('base64url');
    const [first] = await db()
      .insert(assertionUses)
      .values({ key, expiresAt: new Date(exp * 1000) })
      .onConflictDoNothing()
      .returning({ key: assertionUses.key });
    return first !== undefined;
  };

  // Deviation 10.
  const verificationPage = provider.pathFor('code_verification');
  provider.use(async (ctx, next) => {
    if (ctx.method !== 'POST' || ctx.path.replace(/\/$/, '').toLowerCase() !== verificationPage.toLowerCase() || ctx.cookies.get(provider.cookieName('session'))) return next();
    ctx.status = 303;
    ctx.redirect(verificationPage);
  });

  // Deviations 6, 7 and 9.
  provider.use(async (ctx, next) => {
    await next();
    const route = (ctx as KoaContextWithOIDC).oidc?.route;
    if (route === 'discovery') {
      const document = ctx.body as Record<string, unknown> | undefined;
      if (document && 'backchannel_user_code_parameter_supported' in document) document.backchannel_user_code_parameter_supported = false;
      return;
    }
    if (route !== 'backchannel_authentication' && route !== 'device_authorization' && route !== 'token') return;
    const body = ctx.body as { error?: string; error_description?: string } | undefined;
    if (route === 'token' && body?.error === 'invalid_client' && ctx.status === 400) ctx.status = 401;
    if (body?.error === 'invalid_request' && typeof body.error_description === 'string' && body.error_description.endsWith('is not allowed for this client')) {
      body.error = 'unauthorized_client';
    }
  });
}
