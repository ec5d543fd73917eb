// The organization whose app a sign-in card is for, when the interaction is still alive in this browser: the
// recovery page wears its brand, and the reset mail and audit event name it.
import 'server-only';
import type { AppSignInContext } from '@/lib/clients/app-context';
import { findInteraction } from '@/lib/oidc/interactions';
import { findSignInTarget } from '@/lib/oidc/sign-in-target';
import { db, runtime } from '@/lib/runtime';

export async function signInOrganization(uid: string, cookieHeader: string | null): Promise<AppSignInContext['org'] | undefined> {
  const { provider, env } = runtime();
  const lookup = await findInteraction(provider, cookieHeader, uid);
  if (!lookup.ok) return undefined;
  const target = await findSignInTarget(db(), provider, env.PORTICO_ISSUER, lookup.interaction.params);
  return target.kind === 'app_client' || target.kind === 'mcp_client' ? (target.context.org ?? undefined) : undefined;
}
