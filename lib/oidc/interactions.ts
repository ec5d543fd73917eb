// Reading and finishing oidc-provider interactions from Next.js pages and route handlers.
//
// oidc-provider's interactionDetails/interactionResult read the signed `_interaction` cookie from a Node request.
// App Router code has Web headers instead, so this builds a request object carrying just those headers; the
// response object is never written (the caller answers with its own 303 redirect).
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type Provider from 'oidc-provider';
import type { InteractionResults } from 'oidc-provider';

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

/** Where the sign-in card of an interaction lives (oidc-provider's `interactions.url`); its forms post below it. */
export function interactionPath(uid: string): string {
  return `/auth/app/${uid}`;
}

/** oidc-provider's interaction ids are nanoids. */
export function isInteractionUid(value: string): boolean {
  return /^[A-Za-z0-9_-]{1,64}$/.test(value);
}

function nodePair(cookieHeader: string | null, path: string): [IncomingMessage, ServerResponse] {
  const req = new IncomingMessage(new Socket());
  req.method = 'GET';
  req.url = path;
  req.headers = cookieHeader ? { cookie: cookieHeader } : {};
  return [req, new ServerResponse(req)];
}

export type InteractionLookup =
  | { ok: true; interaction: Interaction }
  | { ok: false; reason: 'expired' };

/**
 * The interaction named by `uid`, if this browser holds its cookie. A uid from the URL alone proves nothing:
 * the cookie (signed, bound to this browser) must name the same interaction.
 */
export async function findInteraction(provider: Provider, cookieHeader: string | null, uid: string): Promise<InteractionLookup> {
  try {
    const interaction = await provider.interactionDetails(...nodePair(cookieHeader, interactionPath(uid)));
    if (interaction.uid !== uid) return { ok: false, reason: 'expired' };
    return { ok: true, interaction };
  } catch {
    return { ok: false, reason: 'expired' };
  }
}

/** Records the interaction's result and returns where the browser must go next (the authorization resume URL). */
export async function finishInteraction(
  provider: Provider,
  cookieHeader: string | null,
  uid: string,
  result: InteractionResults,
): Promise<string> {
  return provider.interactionResult(...nodePair(cookieHeader, interactionPath(uid)), result, { mergeWithLastSubmission: false });
}

/** The person signed in to Portico in this browser (oidc-provider's session cookie), and that session's uid. */
export async function findBrowserSession(provider: Provider, cookieHeader: string | null): Promise<{ accountId: string; sessionUid: string } | undefined> {
  const [req, res] = nodePair(cookieHeader, '/');
  const session = await provider.Session.get(provider.createContext(req, res) as Parameters<typeof provider.Session.get>[0]);
  return session.accountId ? { accountId: session.accountId, sessionUid: session.uid } : undefined;
}
