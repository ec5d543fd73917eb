// The central's request plumbing: its binding (origin and installation: this Portico's issuer), the session from
// its own cookie, and the same-origin check every state-changing request passes.
import 'server-only';
import { cookies } from 'next/headers';
import { CENTRAL_COOKIE, CENTRAL_SESSION_SECONDS, findCentralSession, type CentralBinding, type CentralSession } from '@/lib/approvals/central';
import { readCappedText } from '@/lib/http/body';
import { db, runtime } from '@/lib/runtime';

export function centralBinding(): CentralBinding {
  const issuer = runtime().env.PORTICO_ISSUER;
  return { origin: new URL(issuer).origin, installation: issuer };
}

export async function centralSessionToken(): Promise<string | undefined> {
  return (await cookies()).get(CENTRAL_COOKIE)?.value;
}

export async function currentCentralSession(): Promise<CentralSession | undefined> {
  return findCentralSession(db(), await centralSessionToken(), centralBinding());
}

/** Cross-site requests are refused: the browser's Origin must be Portico's own. */
export function sameOrigin(request: Request): boolean {
  return request.headers.get('origin') === centralBinding().origin;
}

/** Its own cookie: Path=/central, HttpOnly, SameSite=Strict, at most 15 minutes; Secure except on loopback http. */
export function centralCookie(token: string | null): string {
  const secure = runtime().env.issuerIsHttps ? '; Secure' : '';
  return `${CENTRAL_COOKIE}=${token ?? ''}; Path=/central; HttpOnly; SameSite=Strict; Max-Age=${token ? CENTRAL_SESSION_SECONDS : 0}${secure}`;
}

export function jsonError(status: number, error: string, description: string): Response {
  return Response.json({ error, error_description: description }, { status, headers: { 'Cache-Control': 'no-store' } });
}

/** A JSON object body, read with a size cap; undefined for anything else (not JSON, null, an array, too big). */
export async function readJsonObject(request: Request, limit: number): Promise<Record<string, unknown> | undefined> {
  const text = await readCappedText(request, limit);
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
