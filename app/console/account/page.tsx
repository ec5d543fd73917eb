// The person's one account area: email, password, second factors, passkeys, organizations, every session (console,
// central, apps — each with its own sign-out) and recent sign-ins. /account/sessions leads here.
import type { Metadata } from 'next';
import Link from 'next/link';
import { listMembershipsOf } from '@/lib/organizations/memberships';
import { minimumPasswordLength } from '@/lib/accounts/factors/password-policy';
import { listAccountSessions, type AccountSessionKind } from '@/lib/accounts/sessions';
import { When } from '../../_components/when';
import { listRecentSignIns } from '@/lib/accounts/sign-in-events';
import { CardForm } from '../../account/_components/card-form';
import { linkedIdentitiesOf } from '@/lib/identity/links';
import { accountStepUpOptionsAction, changePasswordAction, removeLinkAction, saveNotificationSettingsAction, confirmTotpAction, passkeyRegistrationOptionsAction, registerPasskeyAction, removePasskeyAction, removeTotpAction, replaceRecoveryCodesAction, sendVerificationAction, startTotpAction } from './actions';
import { TimeZoneSection } from './time-zone-section';
import { AddPasskey } from './add-passkey';
import { NotificationsForm } from './notifications-form';
import { noticeSettingsOf } from '@/lib/notifications/settings';
import { StepUpCardForm } from './step-up-card-form';
import { listPasskeys } from '@/lib/accounts/factors/passkeys';
import { stepUpFactorOf } from '@/lib/accounts/factors/step-up';
import { visibleText } from '@/lib/util/visible-text';
import { secondFactorStateOf } from '@/lib/accounts/factors/second-factors';
import { pendingTotpEnrollment } from '@/lib/accounts/factors/totp';
import { getT } from '@/app/_lib/i18n/server';
import { connectableServersOf } from '@/lib/gateway/upstream-oauth';
import { db, runtime } from '@/lib/runtime';
import { requireConsoleSession } from '../_lib/session';
import { columnLabels, PageHeader, Section } from '../_components/page-header';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('account.page'))('title') };
}

/** Where a sign-in happened, as recorded (sign-in events): named in the person's language, anything else as is. */
const SURFACES = ['console', 'central', 'app', 'invitation'] as const;
/** What came of connecting to (or disconnecting from) an upstream MCP server (/console/gateway/…, /gateway/callback). */
const GATEWAY_NOTICES = ['gateway-connected', 'gateway-disconnected', 'gateway-refused', 'gateway-unavailable', 'gateway-unknown'] as const;
const isSurface = (value: string): value is (typeof SURFACES)[number] => (SURFACES as readonly string[]).includes(value);

export default async function AccountPage(props: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { user, tokenHash } = await requireConsoleSession();
  const { done } = await props.searchParams;
  const [memberships, sessions, signIns, factors, enrollment, keys, notices, links, upstreams] = await Promise.all([
    listMembershipsOf(db(), user.id),
    listAccountSessions(db(), user.id, tokenHash),
    listRecentSignIns(db(), user.id),
    secondFactorStateOf(db(), user.id),
    pendingTotpEnrollment(db(), runtime().atRestKey, user),
    listPasskeys(db(), user.id),
    noticeSettingsOf(db(), user.id),
    linkedIdentitiesOf(db(), user.id),
    connectableServersOf(db(), user.id),
  ]);
  const stepUpFactor = await stepUpFactorOf(db(), user.id);
  const t = await getT('account.page');
  const sessionKind = (kind: AccountSessionKind) => t(`sessionKinds.${kind}`);
  return (
    <div className="min-h-screen bg-slate-50">
      <main className="mx-auto max-w-3xl px-4 py-8">
        <p className="mb-4 text-sm">
          <Link href="/console">{t('backToConsole')}</Link>
        </p>
        <PageHeader title={t('title')} description={t('signedInAs', { email: user.email })} />
        <Section id="email" title={t('email')}>
          <p className="mb-3 text-sm" data-testid="email-status">
            {user.email} · {user.emailVerifiedAt ? <strong className="text-green-800">{t('emailConfirmed')}</strong> : <strong className="text-amber-800">{t('emailNotConfirmed')}</strong>}
          </p>
          {user.emailVerifiedAt ? null : (
            <div className="card-form max-w-md">
              <CardForm action={sendVerificationAction} fields={[]} submitLabel={t('sendConfirmation')} testId="send-verification" />
            </div>
          )}
        </Section>
        <Section id="password" title={t('password')}>
          <p className="mb-3 text-sm text-slate-600">{t('passwordIntro')}</p>
          <div className="card-form max-w-md">
            <CardForm
              action={changePasswordAction}
              testId="change-password"
              submitLabel={t('changePassword')}
              fields={[
                { name: 'email', label: t('email'), type: 'email', readOnly: true, defaultValue: user.email, autoComplete: 'username' },
                { name: 'currentPassword', label: t('currentPassword'), type: 'password', autoComplete: 'current-password', required: true },
                { name: 'password', label: t('newPassword'), type: 'password', autoComplete: 'new-password', required: true, newPasswordMinimum: minimumPasswordLength(factors.totp === 'confirmed' || factors.passkeys > 0) },
              ]}
            />
          </div>
        </Section>
        <Section id="two-step" title={t('twoStep')}>
          {factors.totp === 'confirmed' ? (
            <>
              <p className="mb-3 text-sm" data-testid="two-step-status">
                {t.rich('totpOnStatus', { strong: (chunks) => <strong className="text-green-800">{chunks}</strong>, left: factors.recoveryCodesLeft })}
              </p>
              <div className="grid grid-cols-1 gap-6 md:grid-cols-2">
                <div className="card-form">
                  <StepUpCardForm factor={stepUpFactor} stepUpOptionsAction={accountStepUpOptionsAction} action={replaceRecoveryCodesAction} testId="replace-recovery-codes" submitLabel={t('newRecoveryCodes')} />
                </div>
                <div className="card-form">
                  <StepUpCardForm factor={stepUpFactor} stepUpOptionsAction={accountStepUpOptionsAction} action={removeTotpAction} testId="remove-totp" submitLabel={t('turnOff')} />
                </div>
              </div>
            </>
          ) : enrollment ? (
            <div className="grid grid-cols-1 gap-4 md:grid-cols-2" data-testid="totp-enrollment">
              <div>
                <p className="mb-2 text-sm">{t('scanStep')}</p>
                {/* eslint-disable-next-line @next/next/no-img-element */}
                <img src={enrollment.qrCode} alt={t('qrAlt')} width={180} height={180} className="mb-2 rounded border border-slate-200" />
                <p className="text-sm">
                  {t('key')} <code data-testid="totp-secret">{enrollment.secret.match(/.{1,4}/g)?.join(' ')}</code>
                </p>
              </div>
              <div className="card-form">
                <p className="mb-2 text-sm">{t('enterCodeStep')}</p>
                <StepUpCardForm
                  factor={stepUpFactor}
                  stepUpOptionsAction={accountStepUpOptionsAction}
                  action={confirmTotpAction}
                  testId="confirm-totp"
                  submitLabel={t('turnOn')}
                  fields={[{ name: 'code', label: t('codeFromApp'), type: 'text', autoComplete: 'one-time-code', required: true }]}
                />
              </div>
            </div>
          ) : (
            <>
              <p className="mb-3 text-sm text-slate-600" data-testid="two-step-status">
                {factors.passkeys > 0
                  ? t('onThroughPasskeys', { left: factors.recoveryCodesLeft })
                  : t('off')}
              </p>
              <form action={startTotpAction}>
                <button type="submit" className="btn btn-primary">
                  {t('setUpAuthenticator')}
                </button>
              </form>
            </>
          )}
        </Section>
        <Section id="passkeys" title={t('passkeys')}>
          <p className="mb-3 text-sm text-slate-700">{t('passkeysIntro')}</p>
          {keys.length > 0 ? (
            <table className="table mb-4" data-testid="passkey-list" style={columnLabels([t('columns.name'), t('columns.kind'), t('columns.added'), t('columns.lastUsed')])}>
              <thead>
                <tr>
                  <th scope="col">{t('columns.name')}</th>
                  <th scope="col">{t('columns.kind')}</th>
                  <th scope="col">{t('columns.added')}</th>
                  <th scope="col">{t('columns.lastUsed')}</th>
                </tr>
              </thead>
              <tbody>
                {keys.map((key) => (
                  <tr key={key.id}>
                    <td>{visibleText(key.name)}</td>
                    <td>{key.deviceType === 'multiDevice' ? t('synced') : t('deviceOnly')}</td>
                    <td>
                      <When value={key.createdAt} relative={false} />
                    </td>
                    <td>{key.lastUsedAt ? <When value={key.lastUsedAt} /> : t('never')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p className="mb-3 text-sm" data-testid="passkey-list">
              {t('noPasskey')}
            </p>
          )}
          <div className="grid grid-cols-1 gap-6 md:grid-cols-2">
            <div className="card-form">
              <h3 className="mb-2 font-semibold">{t('addPasskey')}</h3>
              <AddPasskey factor={stepUpFactor} optionsAction={passkeyRegistrationOptionsAction} stepUpOptionsAction={accountStepUpOptionsAction} registerAction={registerPasskeyAction} />
            </div>
            {keys.map((key) => (
              <div className="card-form" key={key.id}>
                <h3 className="mb-2 font-semibold">{t('removePasskeyHeading', { name: visibleText(key.name) })}</h3>
                <StepUpCardForm
                  factor={stepUpFactor}
                  stepUpOptionsAction={accountStepUpOptionsAction}
                  action={removePasskeyAction}
                  testId={`remove-passkey-${key.id}`}
                  hidden={{ passkeyId: key.id }}
                  submitLabel={t('removePasskey')}
                />
              </div>
            ))}
          </div>
        </Section>
        <Section id="links" title={t('links')}>
          <p className="mb-3 text-sm text-slate-700">{t('linksIntro')}</p>
          {links.length > 0 ? (
            <>
              <table className="table mb-4" data-testid="linked-identities" style={columnLabels([t('linkColumns.connection'), t('linkColumns.subject'), t('linkColumns.how'), t('linkColumns.added'), t('linkColumns.lastUsed')])}>
                <thead>
                  <tr>
                    <th scope="col">{t('linkColumns.connection')}</th>
                    <th scope="col">{t('linkColumns.subject')}</th>
                    <th scope="col">{t('linkColumns.how')}</th>
                    <th scope="col">{t('linkColumns.added')}</th>
                    <th scope="col">{t('linkColumns.lastUsed')}</th>
                  </tr>
                </thead>
                <tbody>
                  {links.map((link) => (
                    <tr key={link.id} data-link={link.connectionName}>
                      <td>
                        {visibleText(link.connectionName)} · {visibleText(link.orgName)}
                      </td>
                      <td className="break-all">{visibleText(link.subject)}</td>
                      <td>{t(`linkedBy.${link.linkedBy}`)}</td>
                      <td>
                        <When value={link.createdAt} relative={false} />
                      </td>
                      <td>{link.lastSignInAt ? <When value={link.lastSignInAt} /> : t('never')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <div className="grid grid-cols-1 gap-6 md:grid-cols-2">
                {links.map((link) => (
                  <div className="card-form" key={link.id}>
                    <h3 className="mb-2 font-semibold">
                      {visibleText(link.connectionName)} · {visibleText(link.orgName)}
                    </h3>
                    <CardForm action={removeLinkAction} fields={[]} hidden={{ linkId: link.id }} submitLabel={t('removeLink')} testId={`remove-link-${link.id}`} />
                  </div>
                ))}
              </div>
            </>
          ) : (
            <p className="text-sm" data-testid="linked-identities">
              {t('noLinks')}
            </p>
          )}
        </Section>
        <Section id="notifications" title={t('notifications')}>
          <p className="mb-3 text-sm text-slate-600">{t.rich('notificationsIntro', { link: (chunks) => <Link href="/console/inbox">{chunks}</Link> })}</p>
          <NotificationsForm action={saveNotificationSettingsAction} initial={notices} />
        </Section>
        <TimeZoneSection saved={user.timeZone} />
        <Section id="orgs" title={t('organizations')}>
          {memberships.length === 0 ? <p className="text-sm text-slate-600">{t('noOrganizations')}</p> : null}
          {runtime().env.PORTICO_ORG_CREATION === 'anyone' ? (
            <p className="mb-2 text-sm">
              {t.rich('createOrganization', {
                link: (chunks) => (
                  <Link href="/console/orgs/new" className="underline" data-testid="new-org-link">
                    {chunks}
                  </Link>
                ),
              })}
            </p>
          ) : null}
          <ul className="grid gap-2">
            {memberships.map((membership) => (
              <li key={membership.orgId}>
                <Link href={`/console/${membership.slug}/apps`}>{membership.name}</Link> <span className="text-sm text-slate-500">· {t('role', { role: membership.role })}</span>
              </li>
            ))}
          </ul>
        </Section>
        {upstreams.length > 0 || done?.toString().startsWith('gateway-') ? (
          <Section id="mcp-servers" title={t('mcpServers')}>
            <p className="mb-3 text-sm text-slate-600">{t('mcpServersIntro')}</p>
            {typeof done === 'string' && GATEWAY_NOTICES.includes(done as (typeof GATEWAY_NOTICES)[number]) ? (
              <p role="status" className={`mb-3 rounded-md p-3 text-sm ${done === 'gateway-connected' || done === 'gateway-disconnected' ? 'bg-green-50 text-green-900' : 'bg-amber-50 text-amber-900'}`} data-testid="gateway-notice">
                {t(`gatewayNotices.${done as (typeof GATEWAY_NOTICES)[number]}`)}
              </p>
            ) : null}
            <ul className="grid grid-cols-1 gap-2" data-testid="mcp-servers">
              {upstreams.map((server) => (
                <li key={server.id} className="flex flex-wrap items-center justify-between gap-3 rounded-md border border-slate-200 px-3 py-2">
                  <div className="min-w-0 flex-1">
                    <p className="font-medium break-words">{visibleText(server.name)}</p>
                    <p className="text-sm text-slate-600 break-words">
                      {visibleText(server.organization)} ·{' '}
                      {server.connectedAt ? t.rich('mcpServerConnected', { when: () => <When value={server.connectedAt!} /> }) : t('mcpServerNotConnected')}
                    </p>
                  </div>
                  {server.connectedAt ? (
                    <form method="post" action={`/console/gateway/disconnect/${server.id}`} className="shrink-0">
                      <button className="btn btn-secondary" type="submit">
                        {t('mcpServerDisconnect', { server: visibleText(server.name) })}
                      </button>
                    </form>
                  ) : (
                    <a className="btn btn-primary shrink-0" href={`/console/gateway/connect/${server.id}`}>
                      {t('mcpServerConnect', { server: visibleText(server.name) })}
                    </a>
                  )}
                </li>
              ))}
            </ul>
          </Section>
        ) : null}
        <Section id="sessions" title={t('sessions')}>
          {done === 'session-ended' ? (
            <p role="status" className="mb-3 rounded-md bg-green-50 p-3 text-sm text-green-900" data-testid="session-ended">
              {t('sessionEnded')}
            </p>
          ) : done === 'session-unknown' ? (
            <p role="status" className="mb-3 rounded-md bg-amber-50 p-3 text-sm text-amber-900">
              {t('sessionUnknown')}
            </p>
          ) : done === 'session-current' ? (
            <p role="status" className="mb-3 rounded-md bg-amber-50 p-3 text-sm text-amber-900">
              {t('sessionCurrent')}
            </p>
          ) : done === 'others-signed-out' ? (
            <p role="status" className="mb-3 rounded-md bg-green-50 p-3 text-sm text-green-900">
              {t('othersSignedOut')}
            </p>
          ) : null}
          <ul className="mb-4 grid grid-cols-1 gap-2" data-testid="account-sessions">
            {sessions.map((session) => {
              const label = `${sessionKind(session.kind)}${session.apps.length > 0 ? `: ${session.apps.join(', ')}` : ''}`;
              return (
                <li key={`${session.kind}:${session.id}`} className="flex items-center justify-between gap-3 rounded-md border border-slate-200 px-3 py-2" data-kind={session.kind}>
                  <div className="min-w-0 flex-1">
                    <p className="font-medium">
                      {sessionKind(session.kind)} {session.current ? <strong className="badge">{t('thisBrowser')}</strong> : null}
                    </p>
                    {session.apps.length > 0 ? (
                      <p className="text-sm" data-testid="session-apps">
                        {session.apps.map((name) => visibleText(name)).join(', ')}
                      </p>
                    ) : null}
                    <p className="text-sm text-slate-600">
                      {t.rich('signedIn', { when: () => <When value={session.since} /> })}
                      {session.device ? <span className="block truncate">{visibleText(session.device)}</span> : null}
                    </p>
                  </div>
                  {session.current ? (
                    <form method="post" action="/console/session/end" className="shrink-0">
                      <button className="btn btn-secondary" type="submit">
                        {t('signOut')}
                      </button>
                    </form>
                  ) : (
                    <form method="post" action="/console/account/sessions/end" className="shrink-0">
                      <input type="hidden" name="kind" value={session.kind} />
                      <input type="hidden" name="id" value={session.id} />
                      <button className="btn btn-secondary" type="submit" aria-label={t('signOutOf', { session: visibleText(label) })}>
                        {t('signOut')}
                      </button>
                    </form>
                  )}
                </li>
              );
            })}
          </ul>
          <form method="post" action="/console/account/sign-out-everywhere">
            <button className="btn btn-danger" type="submit">
              {t('signOutEverywhere')}
            </button>
          </form>
          <p className="mt-2 text-xs text-slate-500">{t('signOutEverywhereHint')}</p>
        </Section>
        <Section id="sign-ins" title={t('recentSignIns')} className="mt-6">
          {signIns.length === 0 ? <p className="text-sm text-slate-600">{t('noSignIns')}</p> : null}
          <table className="table" data-testid="recent-sign-ins" style={columnLabels([t('columns.when'), t('columns.where'), t('columns.from')])}>
            <thead>
              <tr>
                <th scope="col">{t('columns.when')}</th>
                <th scope="col">{t('columns.where')}</th>
                <th scope="col">{t('columns.from')}</th>
              </tr>
            </thead>
            <tbody>
              {signIns.map((signIn, index) => (
                <tr key={index}>
                  <td>
                    <When value={signIn.at} />
                  </td>
                  <td>{isSurface(signIn.surface) ? t(`surfaces.${signIn.surface}`) : signIn.surface}{signIn.target ? ` · ${signIn.target}` : ''}</td>
                  <td className="text-slate-600">{signIn.ip ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Section>
      </main>
    </div>
  );
}
