// The consent step for MCP clients (external, dynamic, CIMD): the person allows or denies, and says who acts –
// themselves, or one of the agents they may use in the app's organization. Nothing from the form is trusted: the
// app comes from the interaction's resource, the agent is looked up among those the person may use.
import type Provider from 'oidc-provider';
import { and, eq } from 'drizzle-orm';
import type { Database } from '../db/client';
import { oidcPayloads } from '../db/schema';
import { findUsableAgent } from '../organizations/agents';
import { isActiveMember } from '../organizations/memberships';
import { findUserById } from '../accounts/users';
import { recordAuditEvent } from '../audit/events';
import { recordConsentBinding } from '../clients/binding';
import { findInteraction, finishInteraction } from './interactions';
import { PORTICO_API_SCOPES } from '../resource/portico-api';
import { BASELINE_SCOPE, listPermissionCatalog } from '../clients/permission-catalog';
import { surfaceStateOf } from '../clients/surface';
import { effectivePermissionsOfPerson } from '../organizations/effective-permissions';
import { resourceTokenScope } from './resource-scope';
import { findSignInTarget } from './sign-in-target';

export type ConsentDecision = { decision: 'allow'; actor: string } | { decision: 'deny' };

export type ConsentOutcome =
  | { kind: 'continue'; location: string }
  /** Back to the consent screen with this error code. */
  | { kind: 'refused'; error: ConsentErrorCode }
  | { kind: 'expired' };

/** The consent screen's error codes; their messages are in the catalogs (consent.errors). */
export const CONSENT_ERROR_CODES = ['agent_not_allowed', 'invalid_request', 'revoked'] as const;
export type ConsentErrorCode = (typeof CONSENT_ERROR_CODES)[number];

export function isConsentErrorCode(value: unknown): value is ConsentErrorCode {
  return typeof value === 'string' && (CONSENT_ERROR_CODES as readonly string[]).includes(value);
}

export interface PermissionToGrant {
  scope: string;
  description: string;
  /** A tool of the app's declared surface that needs this permission is approval_required. */
  approvalRequired: boolean;
}

export interface AppConsentScope {
  /** What allowing grants: the permissions the request names (all, when it names none) that the person holds now. */
  granted: PermissionToGrant[];
  /** Permissions of the app the request names that the person does not hold: left out (RFC 6749 §3.3). */
  notHeld: PermissionToGrant[];
}

/**
 * What consenting to an MCP client's request for an app grants, computed the same way for the screen and for the
 * grant (lib/oidc/resource-scope.ts holds the rule).
 */
export async function appConsentScope(db: Database, input: { appId: string; orgId: string; accountId: string; requestedScope: string }): Promise<AppConsentScope> {
  const [catalog, surface, held] = await Promise.all([
    listPermissionCatalog(db, input.appId),
    surfaceStateOf(db, input.appId),
    effectivePermissionsOfPerson(db, { orgId: input.orgId, appId: input.appId, userId: input.accountId }),
  ]);
  const critical = new Set((surface.declaration ?? []).filter((tool) => tool.riskLevel === 'approval_required').flatMap((tool) => tool.requiredScopes));
  const requested = new Set(input.requestedScope.split(' ').filter(Boolean));
  const named = catalog.filter((entry) => requested.has(entry.scope)).map((entry) => entry.scope);
  const granted = new Set(
    resourceTokenScope({
      named,
      allowedByGrant: catalog.filter((entry) => !entry.retired).map((entry) => entry.scope),
      effective: new Set(held.map((permission) => permission.scope)),
    }),
  );
  const describe = (entry: (typeof catalog)[number]): PermissionToGrant => ({ scope: entry.scope, description: entry.description, approvalRequired: critical.has(entry.scope) });
  return {
    granted: catalog.filter((entry) => granted.has(entry.scope)).map(describe),
    notHeld: catalog.filter((entry) => named.includes(entry.scope) && !granted.has(entry.scope) && !entry.retired).map(describe),
  };
}

/** Permissions grouped for reading: by the part before the first `:` ("invoices"), the baseline on its own. */
export function groupPermissions(permissions: readonly PermissionToGrant[]): { group: string; permissions: PermissionToGrant[] }[] {
  const groups = new Map<string, PermissionToGrant[]>();
  for (const permission of permissions) {
    const group = permission.scope === BASELINE_SCOPE ? '' : (permission.scope.split(':')[0] ?? '');
    groups.set(group, [...(groups.get(group) ?? []), permission]);
  }
  return [...groups.entries()].map(([group, grouped]) => ({ group, permissions: grouped }));
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
  for (const indicator of Object.keys(details.missingResourceScopes ?? {})) {
    if (indicator !== resource) return { kind: 'expired' };
  }
  let grantedScopes: string[];
  if (app) {
    // The permissions the person holds among those asked for (all held, when none is named); the others are
    // recorded as refused, so the request does not come back to this screen for them.
    const scope = await appConsentScope(db, { appId: app.id, orgId: app.orgId, accountId, requestedScope: String(interaction.params.scope ?? '') });
    grantedScopes = scope.granted.map((permission) => permission.scope);
    const refused = (details.missingResourceScopes?.[resource] ?? []).filter((requested) => !grantedScopes.includes(requested));
    if (refused.length) grant.rejectResourceScope(resource, refused.join(' '));
  } else {
    grantedScopes = (details.missingResourceScopes?.[resource] ?? []).filter((scope) => (PORTICO_API_SCOPES as readonly string[]).includes(scope));
  }
  if (grantedScopes.length) grant.addResourceScope(resource, grantedScopes.join(' '));
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
        scope: grantedScopes,
      },
    });
    return 'bound' as const;
  });
  if (bound !== 'bound') {
    // Discarded, not ended: the grant was never used, no app holds a session of it to be told about (grant.destroy
    // would announce an ending, lib/oidc/adapter.ts).
    await db.delete(oidcPayloads).where(and(eq(oidcPayloads.kind, 'Grant'), eq(oidcPayloads.id, grantId)));
    return { kind: 'refused', error: bound };
  }
  const location = await finishInteraction(provider, cookieHeader, uid, { consent: { grantId } });
  return { kind: 'continue', location };
}
