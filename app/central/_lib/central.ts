// The central's request plumbing: its binding (origin and installation: this Portico's issuer), the session from
// its own cookie, and the same-origin check every state-changing request passes.
import 'server-only';
import { cookies } from 'next/headers';
import { CENTRAL_COOKIE, CENTRAL_SESSION_SECONDS, EMBEDDED_CENTRAL_COOKIE, findCentralSession, type CentralBinding, type CentralSession, type CentralSurfaceKind } from '@/lib/approvals/central';
import { oauthError, oauthRefusalAnswer } from '@/lib/http/errors';
import { localized, textIn } from '@/lib/i18n/catalogs';
import { requestLocale } from '@/app/_lib/i18n/server';
import { db, runtime } from '@/lib/runtime';

/** The two centrals: the external one (its own tab) and the embedded one (framed by listed origins only). */
export interface CentralSurface {
  kind: CentralSurfaceKind;
  cookie: string;
  path: '/central' | '/embedded-central';
}
export const EXTERNAL_CENTRAL: CentralSurface = { kind: 'external', cookie: CENTRAL_COOKIE, path: '/central' };
export const EMBEDDED_CENTRAL: CentralSurface = { kind: 'embedded', cookie: EMBEDDED_CENTRAL_COOKIE, path: '/embedded-central' };

export function centralBinding(surface: CentralSurface = EXTERNAL_CENTRAL): CentralBinding {
  const issuer = runtime().env.PORTICO_ISSUER;
  return { origin: new URL(issuer).origin, installation: issuer, surface: surface.kind };
}

export async function centralSessionToken(surface: CentralSurface = EXTERNAL_CENTRAL): Promise<string | undefined> {
  return (await cookies()).get(surface.cookie)?.value;
}

export async function currentCentralSession(surface: CentralSurface = EXTERNAL_CENTRAL): Promise<CentralSession | undefined> {
  return findCentralSession(db(), await centralSessionToken(surface), centralBinding(surface));
}

/** Cross-site requests are refused: the browser's Origin must be Portico's own (the embedded central's too). */
export function sameOrigin(request: Request): boolean {
  return request.headers.get('origin') === new URL(runtime().env.PORTICO_ISSUER).origin;
}

/**
 * Each central's own cookie, HttpOnly, at most 15 minutes. External: Path=/central, SameSite=Strict, Secure except
 * on loopback http. Embedded: Path=/embedded-central, SameSite=None (it is sent inside another site's frame) and
 * Partitioned (CHIPS: kept apart per top-level site), which both require Secure; browsers accept Secure cookies
 * from loopback http, so local runs work too.
 */
export function centralCookie(token: string | null, surface: CentralSurface = EXTERNAL_CENTRAL): string {
  const maxAge = `Max-Age=${token ? CENTRAL_SESSION_SECONDS : 0}`;
  if (surface.kind === 'embedded') return `${surface.cookie}=${token ?? ''}; Path=${surface.path}; HttpOnly; Secure; SameSite=None; Partitioned; ${maxAge}`;
  const secure = runtime().env.issuerIsHttps ? '; Secure' : '';
  return `${surface.cookie}=${token ?? ''}; Path=${surface.path}; HttpOnly; SameSite=Strict; ${maxAge}${secure}`;
}

/**
 * The central's one answer to a refusal (the broker's, the central's own, a step-up's), in the status its domain's
 * table gives it everywhere (lib/approvals/refusal-codes.ts). Its `error_description` is what the central's page
 * shows the operator: in their language (the page's). Anything else: undefined, for the handler to throw on.
 */
export async function refusalResponse(error: unknown): Promise<Response | undefined> {
  const locale = await requestLocale();
  return oauthRefusalAnswer(error, (refusal) => (refusal.text ? textIn(refusal.text, locale) : refusal.message));
}

/** The answer when the central's session has ended (the page shows its words and asks the operator to sign in again). */
export async function sessionEndedResponse(): Promise<Response> {
  return oauthError(401, 'session', textIn(localized('approvals.refusals.sessionEnded'), await requestLocale()));
}
