// An app's surface on Portico's side: the secret it shares with the app, the declaration the app sends, and the
// verification an admin starts from the security tab (Portico calls the app's introspection route and compares).
// The signing and the comparison are the app kit's (app-kit/surface.ts), so both sides run the same code.
import { randomBytes } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import {
  compareSurfaces,
  isSameSurface,
  parseSurfaceDocument,
  RESPONSE_SIGNATURE_HEADER,
  SIGNATURE_HEADER,
  SIGNATURE_REFUSALS,
  signRequest,
  SURFACE_PATH,
  verifyResponseSignature,
  verifySignedRequest,
  type ReplayGuard,
  type SurfaceDifference,
  type SurfaceTool,
} from '../../app-kit/surface';
import type { Queryable } from '../db/client';
import { readStreamCapped } from '../http/body';
import { outboundFetch, OutboundRefused, type OutboundPolicy } from '../http/outbound';
import { apps, appSurfaces, clients, signedRequestNonces } from '../db/schema';
import { decryptAtRest, encryptAtRest } from '../security/at-rest';
import { isSupportedAppKitContract, SUPPORTED_APP_KIT_CONTRACT_VERSIONS } from './app-environment';
import { localized, textIn, type LocalizedText } from '../i18n/catalogs';

export const SURFACE_SECRET_PREFIX = 'pss_';
/** How long Portico waits for an app's introspection route. */
export const VERIFICATION_TIMEOUT_MS = 5_000;
/** The largest introspection answer Portico reads. */
export const MAX_SURFACE_BYTES = 256 * 1024;

/** A new surface secret for the app, replacing any previous one; returned once, stored only encrypted. */
export async function issueSurfaceSecret(db: Queryable, appId: string, atRestKey: Uint8Array): Promise<string> {
  const secret = `${SURFACE_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
  const secretEncrypted = await encryptAtRest(secret, atRestKey);
  await db
    .insert(appSurfaces)
    .values({ appId, secretEncrypted, secretCreatedAt: sql`now()` })
    // A verification made with the previous secret says nothing about the app now.
    .onConflictDoUpdate({ target: appSurfaces.appId, set: { secretEncrypted, secretCreatedAt: sql`now()`, lastCheck: null, lastCheckedAt: null } });
  return secret;
}

export interface SurfaceState {
  hasSecret: boolean;
  secretCreatedAt: Date | null;
  declaration: SurfaceTool[] | null;
  declaredContractVersion: number | null;
  declaredAt: Date | null;
  lastCheck: SurfaceVerification | null;
  lastCheckedAt: Date | null;
}

export async function surfaceStateOf(db: Queryable, appId: string): Promise<SurfaceState> {
  const [row] = await db.select().from(appSurfaces).where(eq(appSurfaces.appId, appId));
  return {
    hasSecret: Boolean(row?.secretEncrypted),
    secretCreatedAt: row?.secretCreatedAt ?? null,
    declaration: (row?.declaration as SurfaceTool[] | null | undefined) ?? null,
    declaredContractVersion: row?.declaredContractVersion ?? null,
    declaredAt: row?.declaredAt ?? null,
    lastCheck: (row?.lastCheck as SurfaceVerification | null | undefined) ?? null,
    lastCheckedAt: row?.lastCheckedAt ?? null,
  };
}

export async function surfaceSecretOf(db: Queryable, appId: string, atRestKey: Uint8Array): Promise<string | undefined> {
  const [row] = await db.select({ secret: appSurfaces.secretEncrypted }).from(appSurfaces).where(eq(appSurfaces.appId, appId));
  return row?.secret ? decryptAtRest(row.secret, atRestKey) : undefined;
}

/** The app whose own OIDC client is `clientId`, with its surface secret (the key id of a declaration). */
export async function appOfSurfaceKey(db: Queryable, clientId: string, atRestKey: Uint8Array) {
  const [row] = await db
    .select({ appId: apps.id, orgId: apps.orgId, name: apps.name, identity: apps.identity, publishOrigin: apps.publishOrigin, secret: appSurfaces.secretEncrypted })
    .from(clients)
    .innerJoin(apps, eq(apps.id, clients.appId))
    .innerJoin(appSurfaces, eq(appSurfaces.appId, apps.id))
    .where(and(eq(clients.id, clientId), eq(clients.kind, 'app'), isNull(clients.revokedAt)));
  if (!row?.secret) return undefined;
  return { appId: row.appId, orgId: row.orgId, name: row.name, identity: row.identity, resource: `${row.publishOrigin}/api/mcp`, secret: await decryptAtRest(row.secret, atRestKey) };
}

/** Signed-call nonces in PostgreSQL: a nonce is accepted once, across every instance. */
export function postgresReplayGuard(db: Queryable): ReplayGuard {
  return {
    async remember(nonce, expiresAt) {
      const inserted = await db.insert(signedRequestNonces).values({ nonce, expiresAt }).onConflictDoNothing().returning({ nonce: signedRequestNonces.nonce });
      return inserted.length === 1;
    },
  };
}

export async function recordDeclaration(db: Queryable, appId: string, tools: SurfaceTool[], contractVersion: number): Promise<Date> {
  const [row] = await db
    .update(appSurfaces)
    // A new declaration has not been verified: the last outcome no longer applies to it.
    .set({ declaration: tools, declaredContractVersion: contractVersion, declaredAt: sql`now()`, lastCheck: null, lastCheckedAt: null })
    .where(eq(appSurfaces.appId, appId))
    .returning({ declaredAt: appSurfaces.declaredAt });
  if (!row?.declaredAt) throw new Error('the app has no surface row');
  return row.declaredAt;
}

export type SurfaceOutcome = 'clean' | 'drift' | 'unsupported' | 'unreachable';

export interface SurfaceVerification {
  outcome: SurfaceOutcome;
  /** One sentence for the admin: what was found, or why nothing could be compared (English). */
  detail: string;
  /** The same sentence as catalog words, for the console to show in the person's language (absent in older records). */
  text?: LocalizedText;
  difference?: SurfaceDifference;
  /** The exposed surface, when the app answered. */
  exposedTools?: number;
}

/**
 * Calls the app's introspection route with a signed request and compares its answer with the declaration.
 * Only a signed, well-formed answer can be clean or drift; anything else is unsupported (no such route, an older
 * kit) or unreachable (down, timeout, refused or bad signature) — never clean.
 */
/** The fetch surface verification uses: Portico's outbound guard, with verification's caps. */
export function surfaceVerificationFetch(policy: OutboundPolicy): typeof fetch {
  return outboundFetch(policy, { timeoutMs: VERIFICATION_TIMEOUT_MS, maxBytes: MAX_SURFACE_BYTES });
}

/** A verification's outcome with its sentence, in English (`detail`) and as catalog words (`text`). */
function found<T extends Omit<SurfaceVerification, 'detail' | 'text'>>(outcome: T, text: LocalizedText): T & { detail: string; text: LocalizedText } {
  return { ...outcome, detail: textIn(text), text };
}

export async function verifyAppSurface(input: { publishOrigin: string; secret: string; declaration: SurfaceTool[] | null }, fetchImpl: typeof fetch): Promise<SurfaceVerification> {
  const target = new URL(SURFACE_PATH, input.publishOrigin);
  // Each attempt signs anew (a nonce is good once). A second attempt only follows a network error before any answer:
  // a kept-alive connection to an app that has restarted since fails once, and is no verdict on the app.
  const attempt = async () => {
    const signed = signRequest(input.secret, { method: 'GET', path: target.pathname, body: '' });
    // No redirects: the answer must come from the app's own origin, signed.
    const answer = await fetchImpl(target, { method: 'GET', redirect: 'manual', headers: { [SIGNATURE_HEADER]: signed.header, Accept: 'application/json' }, signal: AbortSignal.timeout(VERIFICATION_TIMEOUT_MS) });
    return { answer, nonce: signed.nonce };
  };
  let response: Response;
  let nonce: string;
  let body: string;
  try {
    ({ answer: response, nonce } = await attempt().catch((error: unknown) => {
      // Only a connection that failed is worth a second try; a refused address or a timeout is the answer.
      if (error instanceof OutboundRefused && error.reason !== 'unreachable') throw error;
      if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) throw error;
      return attempt();
    }));
    const read = await readStreamCapped(response.body, MAX_SURFACE_BYTES);
    if (read === undefined) return found({ outcome: 'unreachable' }, localized('console.app.surface.details.tooLarge', { max: MAX_SURFACE_BYTES }));
    body = read.toString('utf8');
  } catch (error) {
    // One sentence per kind of refusal, never the network error itself: which error a private address produced
    // (refused, reset, a TLS name) would map the network behind Portico for whoever sets the address.
    if (error instanceof OutboundRefused && error.reason === 'private_network') {
      return found({ outcome: 'unreachable' }, localized('console.app.surface.details.privateNetwork', { origin: target.origin }));
    }
    if (error instanceof OutboundRefused && error.reason === 'address_not_allowed') {
      return found({ outcome: 'unreachable' }, localized('console.app.surface.details.notPublic', { origin: target.origin }));
    }
    if (error instanceof OutboundRefused && error.reason === 'too_large') return found({ outcome: 'unreachable' }, localized('console.app.surface.details.tooLarge', { max: MAX_SURFACE_BYTES }));
    const timedOut = error instanceof OutboundRefused ? error.reason === 'timeout' : error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return found(
      { outcome: 'unreachable' },
      timedOut ? localized('console.app.surface.details.timeout', { seconds: VERIFICATION_TIMEOUT_MS / 1000, url: target.href }) : localized('console.app.surface.details.unreachable', { url: target.href }),
    );
  }
  if (response.status === 404 || response.status === 405 || response.status === 501) {
    return found({ outcome: 'unsupported' }, localized('console.app.surface.details.noRoute', { path: target.pathname, status: response.status }));
  }
  if (response.status === 401 || response.status === 403) {
    return found({ outcome: 'unreachable' }, localized('console.app.surface.details.signatureRefused', { status: response.status }));
  }
  if (response.status !== 200) return found({ outcome: 'unreachable' }, localized('console.app.surface.details.httpStatus', { status: response.status }));
  if (!verifyResponseSignature(input.secret, nonce, 200, body, response.headers.get(RESPONSE_SIGNATURE_HEADER))) {
    return found({ outcome: 'unreachable' }, localized('console.app.surface.details.unsigned'));
  }
  let parsed: ReturnType<typeof parseSurfaceDocument>;
  try {
    parsed = parseSurfaceDocument(JSON.parse(body));
  } catch {
    return found({ outcome: 'unreachable' }, localized('console.app.surface.details.notJson'));
  }
  if (!parsed.ok) return found({ outcome: 'unreachable' }, localized('console.app.surface.details.notSurface', { error: parsed.error }));
  if (parsed.surface.resource !== `${new URL(input.publishOrigin).origin}/api/mcp`) {
    return found({ outcome: 'unreachable' }, localized('console.app.surface.details.otherResource', { resource: parsed.surface.resource.slice(0, 200) }));
  }
  if (!isSupportedAppKitContract(parsed.surface.kit_contract_version)) {
    return found({ outcome: 'unsupported' }, localized('console.app.surface.details.contract', { version: parsed.surface.kit_contract_version, expected: SUPPORTED_APP_KIT_CONTRACT_VERSIONS.join(', ') }));
  }
  const difference = compareSurfaces(input.declaration ?? [], parsed.surface.tools);
  const exposedTools = parsed.surface.tools.length;
  // Without a declaration there is nothing to be clean against, even for an app with no tools.
  if (input.declaration && isSameSurface(difference)) return found({ outcome: 'clean', exposedTools }, localized('console.app.surface.details.clean', { count: exposedTools }));
  if (!input.declaration) return found({ outcome: 'drift', difference, exposedTools }, localized('console.app.surface.details.neverDeclared', { count: exposedTools }));
  return found(
    { outcome: 'drift', difference, exposedTools },
    localized('console.app.surface.details.drift', { undeclared: difference.undeclared.length, missing: difference.missing.length, changed: difference.changed.length }),
  );
}

export async function recordVerification(db: Queryable, appId: string, verification: SurfaceVerification): Promise<void> {
  await db
    .insert(appSurfaces)
    .values({ appId, lastCheck: verification, lastCheckedAt: sql`now()` })
    .onConflictDoUpdate({ target: appSurfaces.appId, set: { lastCheck: verification, lastCheckedAt: sql`now()` } });
}


export type SignedAppCall = { ok: true; app: NonNullable<Awaited<ReturnType<typeof appOfSurfaceKey>>>; clientId: string } | { ok: false; description: string };

/**
 * Authenticates a call an app makes to Portico (declaration, grant check): the HMAC proof under the surface secret
 * of the app whose client id is the key id, within 5 minutes, its nonce never seen on any instance.
 */
export async function authenticateSignedAppCall(db: Queryable, atRestKey: Uint8Array, request: Request, body: string): Promise<SignedAppCall> {
  let app: Awaited<ReturnType<typeof appOfSurfaceKey>>;
  const check = await verifySignedRequest(
    async (clientId) => {
      app = clientId ? await appOfSurfaceKey(db, clientId, atRestKey) : undefined;
      return app?.secret;
    },
    { method: request.method, path: new URL(request.url).pathname, body, header: request.headers.get(SIGNATURE_HEADER) },
    postgresReplayGuard(db),
  );
  if (!check.ok || !app) return { ok: false, description: check.ok ? SIGNATURE_REFUSALS.bad_signature : SIGNATURE_REFUSALS[check.reason] };
  return { ok: true, app, clientId: check.keyId };
}
