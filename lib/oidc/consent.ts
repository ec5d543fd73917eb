// The consent step for MCP clients (external, dynamic, CIMD): the person allows or denies, and says who acts –
// themselves, or one of the agents they may use in the app's organization. Nothing from the form is trusted: the
// app comes from the interaction's resource, the agent is looked up among those the person may use.
import type Provider from 'oidc-provider';
import type { Database } from '../db/client';
import { findUsableAgent } from '../accounts/agents';
import { isActiveMember } from '../accounts/memberships';
import { findUserById } from '../accounts/users';
import { recordAuditEvent } from '../audit/events';
import { recordConsentBinding } from '../clients/binding';
import { findInteraction, finishInteraction } from './interactions';
import { APP_RESOURCE_SCOPES } from './resource-servers';
import { PORTICO_API_SCOPES } from '../resource/portico-api';
import { findSignInTarget } from './sign-in-target';

export type ConsentDecision = { decision: 'allow'; actor: string } | { decision: 'deny' };

export type ConsentOutcome =
  | { kind: 'continue'; location: string }
  /** Back to the consent screen with this error code. */
  | { kind: 'refused'; error: ConsentErrorCode }
  | { kind: 'expired' };

export const CONSENT_ERRORS = {
  agent_not_allowed: 'That agent is not one you may use in this organization. Choose yourself or one of the agents listed.',
  invalid_request: 'Choose who acts, then allow or deny.',
  revoked: 'The organization revoked this application’s access to the app while you were deciding.',
} as const;
export type ConsentErrorCode = keyof typeof CONSENT_ERRORS;

export function isConsentErrorCode(value: unknown): value is ConsentErrorCode {
  return typeof value === 'string' && Object.hasOwn(CONSENT_ERRORS, value);
}

export interface ConsentInput {
  provider: Provider;
  db: Database;
  cookieHeader: string | null;
  uid: string;
  decision: ConsentDecision;
  clientIp: string;
  issuer: string;
}

export async function completeConsent(input: ConsentInput): Promise<ConsentOutcome> {
  const { provider, db, cookieHeader, uid } = input;
  const lookup = await findInteraction(provider, cookieHeader, uid);
  if (!lookup.ok) return { kind: 'expired' };
  const { interaction } = lookup;
  const accountId = interaction.session?.accountId;
  if (interaction.prompt.name !== 'consent' || !accountId) return { kind: 'expired' };

  const target = await findSignInTarget(db, provider, input.issuer, interaction.params);
  if (target.kind !== 'mcp_client') return { kind: 'expired' }; // the screen shows why
  const { client, resource } = target;
  const app = target.target.kind === 'app' ? target.target.app : undefined;
  const user = await findUserById(db, accountId);
  if (!user || user.disabledAt || (app && !(await isActiveMember(db, app.orgId, accountId)))) return { kind: 'expired' };
  const actor = { type: 'person' as const, id: user.id, label: user.email, ip: input.clientIp };
  const audited = { orgId: app?.orgId ?? null, actor, appId: app?.id ?? null, clientId: client.id, subject: { type: 'client', id: client.id, label: client.name } };

  if (input.decision.decision === 'deny') {
    await recordAuditEvent(db, { ...audited, action: 'client.consent_denied', details: { resource } });
    const location = await finishInteraction(provider, cookieHeader, uid, { error: 'access_denied', error_description: 'the person denied access' });
    return { kind: 'continue', location };
  }

  // Who acts: checked against the agents this person may use in the app's organization, never taken from the form.
  // Agents belong to an organization, so Portico's own API (no organization) is always used by the person here.
  let agent: { id: string; name: string } | undefined;
  if (input.decision.actor !== 'self') {
    agent = app ? await findUsableAgent(db, app.orgId, accountId, input.decision.actor) : undefined;
    if (!agent) {
      await recordAuditEvent(db, { ...audited, action: 'client.consent_refused', details: { resource, reason: 'agent_not_allowed', requestedActor: input.decision.actor.slice(0, 80) } });
      return { kind: 'refused', error: 'agent_not_allowed' };
    }
  }

  // What the request asked for and the person now grants (oidc-provider lists what the grant still lacks).
  const details = interaction.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
  const grant = new provider.Grant({ accountId, clientId: client.id });
  if (details.missingOIDCScope?.length) grant.addOIDCScope(details.missingOIDCScope.join(' '));
  if (details.missingOIDCClaims?.length) grant.addOIDCClaims(details.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(details.missingResourceScopes ?? {})) {
    if (indicator !== resource) return { kind: 'expired' };
    const known: readonly string[] = app ? APP_RESOURCE_SCOPES : PORTICO_API_SCOPES;
    const allowed = scopes.filter((scope) => known.includes(scope));
    if (allowed.length) grant.addResourceScope(indicator, allowed.join(' '));
  }
  const grantId = await grant.save();

  // The binding and its audit event commit together. A grant saved without a binding is inert: the token endpoint
  // and findAccount refuse any grant of an MCP client that has no binding.
  const bound = await db.transaction(async (tx) => {
    const recorded = await recordConsentBinding(tx, { grantId, client, target: target.target, resource, accountId, agentId: agent?.id ?? null });
    if (recorded !== 'bound') return recorded;
    await recordAuditEvent(tx, {
      ...audited,
      action: 'client.consent_given',
      act: agent?.id ?? null,
      details: {
        resource,
        sub: accountId,
        act: agent?.id ?? null,
        mode: agent ? 'delegated' : 'person',
        actsAs: agent ? { agentId: agent.id, agentName: agent.name } : 'person',
        scope: Object.values(details.missingResourceScopes ?? {}).flat(),
      },
    });
    return 'bound' as const;
  });
  if (bound !== 'bound') {
    await grant.destroy();
    return { kind: 'refused', error: bound };
  }
  const location = await finishInteraction(provider, cookieHeader, uid, { consent: { grantId } });
  return { kind: 'continue', location };
}
