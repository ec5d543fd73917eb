// Home realm discovery on an app's sign-in card: the address typed first decides whether the person signs in with
// Portico (the card asks for the password next) or at their company's identity provider (the app's organization
// has an enterprise connection for the address's verified domain). The sign-in's continuation comes from the
// interaction oidc-provider validated, never from the request.
import type Provider from 'oidc-provider';
import type { Database } from '../db/client';
import { requestsMfa } from '../accounts/sign-in-second-step';
import { connectionForEmail } from '../identity/connections';
import { type FederationDeps } from '../identity/federation/core';
import { beginFederatedSignIn } from '../identity/federation/begin';
import { isUuid } from '../util/uuid';
import { findInteraction } from './interactions';
import { findSignInTarget } from './sign-in-target';

export type HomeRealm = { kind: 'federate'; location: string; token: string } | { kind: 'password' } | { kind: 'expired' };

export async function homeRealmOfAppSignIn(
  provider: Provider,
  db: Database,
  deps: FederationDeps,
  input: { cookieHeader: string | null; uid: string; email: string; clientIp: string },
): Promise<HomeRealm> {
  const lookup = await findInteraction(provider, input.cookieHeader, input.uid);
  if (!lookup.ok || lookup.interaction.prompt.name !== 'login') return { kind: 'expired' };
  const target = await findSignInTarget(db, provider, deps.issuer, lookup.interaction.params);
  if (target.kind !== 'app_client' && target.kind !== 'mcp_client') return { kind: 'expired' };
  const org = target.context.org;
  // Only the app's own organization's connections: another company's identity provider signs nobody in here.
  const connection = org ? await connectionForEmail(db, input.email, { orgId: org.id }) : undefined;
  if (!connection || !org) return { kind: 'password' };
  const started = await beginFederatedSignIn(
    db,
    deps,
    connection,
    {
      surface: 'sign_in',
      mfaRequested: requestsMfa(lookup.interaction.params),
      signIn: {
        surface: 'app',
        uid: input.uid,
        firstParty: target.kind === 'app_client',
        events: {
          surface: 'app',
          ip: input.clientIp,
          orgId: org.id,
          appId: isUuid(target.context.app.id) ? target.context.app.id : null,
          clientId: String(lookup.interaction.params.client_id ?? '').slice(0, 200) || null,
          target: target.context.app.name,
        },
      },
    },
    input.email,
  );
  return { kind: 'federate', ...started };
}
