// The consent screen for MCP clients: the app's identity header (as on the sign-in card), who the client is and
// where it returns, what it may do, and who acts – the person, or one of the agents they may use there.
import { interactionPath } from '@/lib/oidc/interactions';
import { delegatedAgentFor, listUsableAgents } from '@/lib/accounts/agents';
import { findUserById } from '@/lib/accounts/users';
import { appConsentScope, CONSENT_ERRORS, groupPermissions, type AppConsentScope, type ConsentErrorCode } from '@/lib/oidc/consent';
import { redirectsOnlyToLocalhost, type SignInTarget } from '@/lib/oidc/sign-in-target';
import { db } from '@/lib/runtime';
import { AppHeader, SignInFrame } from './sign-in-frame';

type McpTarget = Extract<SignInTarget, { kind: 'mcp_client' }>;

/**
 * What the account scopes and Portico's own API's scopes allow, in words. An app's permissions have their own
 * descriptions (its catalog), listed apart.
 */
function accountScopeDescriptions(scope: string, porticoApi: boolean): string[] {
  const known: Record<string, string> = {
    ...(porticoApi ? { mcp: 'Use Portico’s tools (MCP) with your permissions' } : {}),
    openid: 'Know your Portico account',
    profile: 'See your name',
    email: 'See your email address',
    offline_access: 'Stay connected while you are away',
    'agents:tokens': 'Obtain access tokens for the agents you may use, as those agents or as you through them',
  };
  return [...new Set(scope.split(' '))].flatMap((name) => (known[name] ? [known[name]] : []));
}

/** Where the code goes: a host for http(s), the scheme for a private-use URI (RFC 8252 §7.1). */
function redirectTarget(uri: string): string {
  try {
    const url = new URL(uri);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.host : `${url.protocol}//`;
  } catch {
    return uri;
  }
}

function provenance(target: McpTarget): string {
  const { client, context } = target;
  if (client.kind === 'external') return `Registered for ${context.app.name} by the administrators of ${context.org?.name ?? 'its organization'}.`;
  if (client.kind === 'cimd') return `Described by its own metadata document at ${redirectTarget(client.id)}. Portico has not verified who runs it.`;
  return 'Registered itself with Portico (dynamic registration). Portico has not verified who made it.';
}

export async function ConsentCard(props: { uid: string; target: McpTarget; accountId: string; redirectUri: string; scope: string; error?: ConsentErrorCode }) {
  const { target } = props;
  const { client, context } = target;
  const org = context.org;
  // Agents belong to an organization: for Portico's own API (no organization) the person acts.
  const appId = target.target.kind === 'app' ? target.target.app.id : undefined;
  const [user, agents, connectedAgentId, appScope] = await Promise.all([
    findUserById(db(), props.accountId),
    org ? listUsableAgents(db(), org.id, props.accountId) : [],
    appId ? delegatedAgentFor(db(), appId, props.accountId) : undefined,
    appId && org ? appConsentScope(db(), { appId, orgId: org.id, accountId: props.accountId, requestedScope: props.scope }) : undefined,
  ]);
  const scopes = accountScopeDescriptions(props.scope, !appId);
  // Pre-selected only when it is one of the agents offered (usable by this person in this organization).
  const connected = agents.some((agent) => agent.id === connectedAgentId) ? connectedAgentId : undefined;
  const localOnly = redirectsOnlyToLocalhost(client.redirectUris);

  return (
    <SignInFrame org={org ?? undefined}>
      <AppHeader app={context.app} address={context.app.publishOrigin ?? undefined} />
      <h1>
        Allow {client.name} to use {context.app.name}?
      </h1>
      <ul className="consent-facts" data-testid="consent-facts">
        <li>
          <span className="label">Application</span>
          <span className="value" data-testid="consent-client-name">{client.name}</span>
          <span className="muted">{provenance(target)}</span>
        </li>
        <li>
          <span className="label">Returns to</span>
          <span className="value" data-testid="consent-redirect-host">{redirectTarget(props.redirectUri)}</span>
        </li>
        <li>
          <span className="label">It will be able to</span>
          {appScope ? <AppPermissions scope={appScope} appName={context.app.name} /> : null}
          {scopes.map((line) => (
            <span className="value" key={line}>
              {line}
            </span>
          ))}
          {scopes.length === 0 && (!appScope || appScope.granted.length === 0) ? (
            <span className="muted" data-testid="consent-nothing">
              Nothing: {appScope ? `you hold none of the permissions it asks for in ${context.app.name}.` : 'it asked for no permission.'}
            </span>
          ) : null}
        </li>
      </ul>
      {localOnly ? (
        <div className="alert alert-warning" role="note" data-testid="localhost-warning">
          {client.name} returns only to this computer (localhost). Any program running here could claim that name: allow it only if you started it yourself just now.
        </div>
      ) : null}
      {props.error ? (
        <div className="alert alert-error" role="alert" data-testid="consent-error">
          {CONSENT_ERRORS[props.error]}
        </div>
      ) : null}
      <form method="post" action={`${interactionPath(props.uid)}/consent`}>
        <fieldset className="actor-choice" data-testid="who-acts">
          <legend>Who acts</legend>
          <label>
            <input type="radio" name="actor" value="self" defaultChecked={!connected} />
            <span>
              Me{user ? ` — ${user.name}` : ''}
              <small>{user?.email}</small>
            </span>
          </label>
          {agents.map((agent) => (
            <label key={agent.id}>
              <input type="radio" name="actor" value={agent.id} defaultChecked={agent.id === connected} />
              <span>
                {agent.name}
                {agent.id === connected ? <span className="badge">connected to this app for you</span> : null}
                <small>An agent of {org?.name}, acting for you with your permissions, never more.</small>
              </span>
            </label>
          ))}
          {agents.length === 0 ? <small className="muted">{org ? `You have no agents in ${org.name}.` : 'Portico’s own API is used by you in person.'}</small> : null}
        </fieldset>
        <div className="button-row">
          <button className="button button-secondary" type="submit" name="decision" value="deny">
            Deny
          </button>
          <button className="button" type="submit" name="decision" value="allow">
            Allow
          </button>
        </div>
      </form>
    </SignInFrame>
  );
}

/** The app permissions allowing grants, grouped and by their descriptions; those asked for but not held, apart. */
function AppPermissions({ scope, appName }: { scope: AppConsentScope; appName: string }) {
  return (
    <>
      {groupPermissions(scope.granted).map(({ group, permissions }) => (
        <div className="consent-permission-group" key={group} data-testid="consent-permissions">
          {group ? <span className="muted">{group}</span> : null}
          <ul>
            {permissions.map((permission) => (
              <li key={permission.scope} data-scope={permission.scope}>
                {permission.description}
                {permission.approvalRequired ? (
                  <span className="badge badge-warning" title="A tool that needs this permission waits for a human’s confirmation before it runs.">
                    asks for confirmation
                  </span>
                ) : null}
              </li>
            ))}
          </ul>
        </div>
      ))}
      {scope.notHeld.length > 0 ? (
        <span className="muted" data-testid="consent-not-held">
          Asked for, but you do not hold them in {appName}, so it will not get them: {scope.notHeld.map((permission) => permission.description).join('; ')}.
        </span>
      ) : null}
    </>
  );
}
