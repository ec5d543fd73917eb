// The consent screen for MCP clients: the app's identity header (as on the sign-in card), who the client is and
// where it returns, what it may do, and who acts – the person, or one of the agents they may use there.
import { interactionPath } from '@/lib/oidc/interactions';
import { delegatedAgentFor, listUsableAgents } from '@/lib/organizations/agents';
import { findUserById } from '@/lib/accounts/users';
import { appConsentScope, groupPermissions, type AppConsentScope, type ConsentErrorCode } from '@/lib/oidc/consent';
import type { Translator } from '@/lib/i18n/catalogs';
import { getT } from '@/app/_lib/i18n/server';
import { redirectsOnlyToLocalhost, type SignInTarget } from '@/lib/oidc/sign-in-target';
import { BASELINE_SCOPE } from '@/lib/clients/permission-catalog';
import { db } from '@/lib/runtime';
import { AppHeader, SignInFrame } from './sign-in-frame';

type McpTarget = Extract<SignInTarget, { kind: 'mcp_client' }>;

/**
 * What the account scopes and Portico's own API's scopes allow, in words. An app's permissions have their own
 * descriptions (its catalog), listed apart.
 */
const ACCOUNT_SCOPES = ['openid', 'profile', 'email', 'offline_access', 'agents:tokens'] as const;

function accountScopeDescriptions(t: ConsentTranslator, scope: string, porticoApi: boolean): string[] {
  const known = new Set<string>([...(porticoApi ? ['mcp'] : []), ...ACCOUNT_SCOPES]);
  return [...new Set(scope.split(' '))].flatMap((name) => (known.has(name) ? [t(`scopes.${name as 'mcp' | (typeof ACCOUNT_SCOPES)[number]}`)] : []));
}

type ConsentTranslator = Translator<'consent'>;

/** Where the code goes: a host for http(s), the scheme for a private-use URI (RFC 8252 §7.1). */
function redirectTarget(uri: string): string {
  try {
    const url = new URL(uri);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.host : `${url.protocol}//`;
  } catch {
    return uri;
  }
}

function provenance(t: ConsentTranslator, target: McpTarget): string {
  const { client, context } = target;
  if (client.kind === 'external') return context.org ? t('provenance.external', { app: context.app.name, org: context.org.name }) : t('provenance.externalNoOrg', { app: context.app.name });
  if (client.kind === 'cimd') return t('provenance.cimd', { host: redirectTarget(client.id) });
  return t('provenance.dynamic');
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
  const t = await getT('consent');
  const scopes = accountScopeDescriptions(t, props.scope, !appId);
  // Pre-selected only when it is one of the agents offered (usable by this person in this organization).
  const connected = agents.some((agent) => agent.id === connectedAgentId) ? connectedAgentId : undefined;
  const localOnly = redirectsOnlyToLocalhost(client.redirectUris);

  return (
    <SignInFrame org={org ?? undefined}>
      <AppHeader app={context.app} address={context.app.publishOrigin ?? undefined} />
      <h1>{t('title', { client: client.name, app: context.app.name })}</h1>
      <ul className="consent-facts" data-testid="consent-facts">
        <li>
          <span className="label">{t('application')}</span>
          <span className="value" data-testid="consent-client-name">{client.name}</span>
          <span className="muted">{provenance(t, target)}</span>
        </li>
        <li>
          <span className="label">{t('returnsTo')}</span>
          {/* The device grant (RFC 8628) has no redirect: the token goes to the device that showed the code. */}
          <span className="value" data-testid="consent-redirect-host">{props.redirectUri ? redirectTarget(props.redirectUri) : t('deviceReturn')}</span>
        </li>
        <li>
          <span className="label">{t('willBeAbleTo')}</span>
          {appScope ? <AppPermissions t={t} scope={appScope} appName={context.app.name} /> : null}
          {scopes.map((line) => (
            <span className="value" key={line}>
              {line}
            </span>
          ))}
          {scopes.length === 0 && (!appScope || appScope.granted.length === 0) ? (
            <span className="muted" data-testid="consent-nothing">
              {appScope ? t('nothingNotHeld', { app: context.app.name }) : t('nothingAsked')}
            </span>
          ) : null}
        </li>
      </ul>
      {localOnly ? (
        <div className="alert alert-warning" role="note" data-testid="localhost-warning">
          {t('localhostWarning', { client: client.name })}
        </div>
      ) : null}
      {props.error ? (
        <div className="alert alert-error" role="alert" data-testid="consent-error">
          {t(`errors.${props.error}`)}
        </div>
      ) : null}
      <form method="post" action={`${interactionPath(props.uid)}/consent`}>
        <fieldset className="actor-choice" data-testid="who-acts">
          <legend>{t('whoActs')}</legend>
          <label>
            <input type="radio" name="actor" value="self" defaultChecked={!connected} />
            <span>
              {user ? t('meNamed', { name: user.name }) : t('me')}
              <small>{user?.email}</small>
            </span>
          </label>
          {agents.map((agent) => (
            <label key={agent.id}>
              <input type="radio" name="actor" value={agent.id} defaultChecked={agent.id === connected} />
              <span>
                {agent.name}
                {agent.id === connected ? <span className="badge">{t('connectedBadge')}</span> : null}
                <small>{t('agentActsForYou', { org: org?.name ?? '' })}</small>
              </span>
            </label>
          ))}
          {agents.length === 0 ? <small className="muted">{org ? t('noAgents', { org: org.name }) : t('porticoApiInPerson')}</small> : null}
        </fieldset>
        <div className="button-row">
          <button className="button button-secondary" type="submit" name="decision" value="deny">
            {t('deny')}
          </button>
          <button className="button" type="submit" name="decision" value="allow">
            {t('allow')}
          </button>
        </div>
      </form>
    </SignInFrame>
  );
}

/** The app permissions allowing grants, grouped and by their descriptions; those asked for but not held, apart. */
function AppPermissions({ t, scope, appName }: { t: ConsentTranslator; scope: AppConsentScope; appName: string }) {
  return (
    <>
      {groupPermissions(scope.granted).map(({ group, permissions }) => (
        <div className="consent-permission-group" key={group} data-testid="consent-permissions">
          {group ? <span className="muted">{group}</span> : null}
          <ul>
            {permissions.map((permission) => (
              <li key={permission.scope} data-scope={permission.scope}>
                {/* The baseline's words are Portico's (in the person's language); every other description is the admin's, as written. */}
                {permission.scope === BASELINE_SCOPE ? t('baselinePermission') : permission.description}
                {permission.approvalRequired ? (
                  <span className="badge badge-warning" title={t('asksForConfirmationHint')}>
                    {t('asksForConfirmation')}
                  </span>
                ) : null}
              </li>
            ))}
          </ul>
        </div>
      ))}
      {scope.notHeld.length > 0 ? (
        <span className="muted" data-testid="consent-not-held">
          {t('notHeld', { app: appName, permissions: scope.notHeld.map((permission) => permission.description).join('; ') })}
        </span>
      ) : null}
    </>
  );
}
