// The person's one account area: email, password, second factors, passkeys, organizations, every session (console,
// central, apps — each with its own sign-out) and recent sign-ins. /account/sessions leads here.
import type { Metadata } from 'next';
import Link from 'next/link';
import { listMembershipsOf } from '@/lib/accounts/memberships';
import { minimumPasswordLength } from '@/lib/accounts/password-policy';
import { listAccountSessions, type AccountSessionKind } from '@/lib/accounts/sessions';
import { When } from '../../_components/when';
import { listRecentSignIns } from '@/lib/accounts/sign-in-events';
import { CardForm } from '../../account/_components/card-form';
import { accountStepUpOptionsAction, changePasswordAction, confirmTotpAction, passkeyRegistrationOptionsAction, registerPasskeyAction, removePasskeyAction, removeTotpAction, replaceRecoveryCodesAction, sendVerificationAction, startTotpAction } from './actions';
import { AddPasskey } from './add-passkey';
import { StepUpCardForm } from './step-up-card-form';
import { listPasskeys } from '@/lib/accounts/passkeys';
import { stepUpFactorOf } from '@/lib/accounts/step-up';
import { visibleText } from '@/lib/util/visible-text';
import { pendingTotpEnrollment, secondFactorStateOf } from '@/lib/accounts/second-factors';
import { db, runtime } from '@/lib/runtime';
import { requireConsoleSession } from '../_lib/session';
import { columnLabels, PageHeader, Section } from '../_components/page-header';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Your account' };

const SURFACES: Record<string, string> = { console: 'Console', central: 'Operator central', app: 'App', invitation: 'Invitation accepted' };

const SESSION_KINDS: Record<AccountSessionKind, string> = { console: 'Console', central: 'Operator central', 'embedded-central': 'Operator central (in an app)', app: 'Apps' };

export default async function AccountPage(props: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { user, tokenHash } = await requireConsoleSession();
  const { done } = await props.searchParams;
  const [memberships, sessions, signIns, factors, enrollment, keys] = await Promise.all([
    listMembershipsOf(db(), user.id),
    listAccountSessions(db(), user.id, tokenHash),
    listRecentSignIns(db(), user.id),
    secondFactorStateOf(db(), user.id),
    pendingTotpEnrollment(db(), runtime().atRestKey, user),
    listPasskeys(db(), user.id),
  ]);
  const stepUpFactor = await stepUpFactorOf(db(), user.id);
  return (
    <div className="min-h-screen bg-slate-50">
      <main className="mx-auto max-w-3xl px-4 py-8">
        <p className="mb-4 text-sm">
          <Link href="/console">← Console</Link>
        </p>
        <PageHeader title="Your account" description={`Signed in as ${user.email}.`} />
        <Section id="email" title="Email">
          <p className="mb-3 text-sm" data-testid="email-status">
            {user.email} · {user.emailVerifiedAt ? <strong className="text-green-800">confirmed</strong> : <strong className="text-amber-800">not confirmed yet</strong>}
          </p>
          {user.emailVerifiedAt ? null : (
            <div className="card-form max-w-md">
              <CardForm action={sendVerificationAction} fields={[]} submitLabel="Send me a confirmation link" testId="send-verification" />
            </div>
          )}
        </Section>
        <Section id="password" title="Password">
          <p className="mb-3 text-sm text-slate-600">Changing it signs you out everywhere else: other browsers, the central and every app.</p>
          <div className="card-form max-w-md">
            <CardForm
              action={changePasswordAction}
              testId="change-password"
              submitLabel="Change password"
              fields={[
                { name: 'email', label: 'Email', type: 'email', readOnly: true, defaultValue: user.email, autoComplete: 'username' },
                { name: 'currentPassword', label: 'Current password', type: 'password', autoComplete: 'current-password', required: true },
                { name: 'password', label: 'New password', type: 'password', autoComplete: 'new-password', required: true, newPasswordMinimum: minimumPasswordLength(factors.totp === 'confirmed' || factors.passkeys > 0) },
              ]}
            />
          </div>
        </Section>
        <Section id="two-step" title="Two-step sign-in">
          {factors.totp === 'confirmed' ? (
            <>
              <p className="mb-3 text-sm" data-testid="two-step-status">
                <strong className="text-green-800">On</strong>: every sign-in asks for a code from your authenticator app. {factors.recoveryCodesLeft} of 10 recovery codes left.
              </p>
              <div className="grid grid-cols-1 gap-6 md:grid-cols-2">
                <div className="card-form">
                  <StepUpCardForm factor={stepUpFactor} stepUpOptionsAction={accountStepUpOptionsAction} action={replaceRecoveryCodesAction} testId="replace-recovery-codes" submitLabel="New recovery codes" />
                </div>
                <div className="card-form">
                  <StepUpCardForm factor={stepUpFactor} stepUpOptionsAction={accountStepUpOptionsAction} action={removeTotpAction} testId="remove-totp" submitLabel="Turn off two-step sign-in" />
                </div>
              </div>
            </>
          ) : enrollment ? (
            <div className="grid grid-cols-1 gap-4 md:grid-cols-2" data-testid="totp-enrollment">
              <div>
                <p className="mb-2 text-sm">1. Scan this code with an authenticator app (or type the key below into it).</p>
                {/* eslint-disable-next-line @next/next/no-img-element */}
                <img src={enrollment.qrCode} alt="QR code to add Portico to your authenticator app" width={180} height={180} className="mb-2 rounded border border-slate-200" />
                <p className="text-sm">
                  Key: <code data-testid="totp-secret">{enrollment.secret.match(/.{1,4}/g)?.join(' ')}</code>
                </p>
              </div>
              <div className="card-form">
                <p className="mb-2 text-sm">2. Enter the code it shows, to finish.</p>
                <StepUpCardForm
                  factor={stepUpFactor}
                  stepUpOptionsAction={accountStepUpOptionsAction}
                  action={confirmTotpAction}
                  testId="confirm-totp"
                  submitLabel="Turn on two-step sign-in"
                  fields={[{ name: 'code', label: 'Code from the app', type: 'text', autoComplete: 'one-time-code', required: true }]}
                />
              </div>
            </div>
          ) : (
            <>
              <p className="mb-3 text-sm text-slate-600" data-testid="two-step-status">
                {factors.passkeys > 0
                  ? `On through your passkeys: after your password, a sign-in asks for one of them. ${factors.recoveryCodesLeft} of 10 recovery codes left. You can add an authenticator app as well.`
                  : 'Off. With it on, a sign-in needs a code from an authenticator app on your phone (or one of your passkeys) as well as your password — in the console, the central and every app.'}
              </p>
              <form action={startTotpAction}>
                <button type="submit" className="btn btn-primary">
                  Set up an authenticator app
                </button>
              </form>
            </>
          )}
        </Section>
        <Section id="passkeys" title="Passkeys">
          <p className="mb-3 text-sm text-slate-700">
            A passkey signs you in without a password (your fingerprint, face or device PIN), works as the second step after your password, and
            confirms important decisions. It only works on Portico’s own address, so a look-alike site cannot use it.
          </p>
          {keys.length > 0 ? (
            <table className="table mb-4" data-testid="passkey-list" style={columnLabels(['Name', 'Kind', 'Added', 'Last used'])}>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Added</th>
                  <th scope="col">Last used</th>
                </tr>
              </thead>
              <tbody>
                {keys.map((key) => (
                  <tr key={key.id}>
                    <td>{visibleText(key.name)}</td>
                    <td>{key.deviceType === 'multiDevice' ? 'Synced across your devices' : 'This device only'}</td>
                    <td>
                      <When value={key.createdAt} relative={false} />
                    </td>
                    <td>{key.lastUsedAt ? <When value={key.lastUsedAt} /> : 'Never'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p className="mb-3 text-sm" data-testid="passkey-list">
              You have no passkey yet.
            </p>
          )}
          <div className="grid grid-cols-1 gap-6 md:grid-cols-2">
            <div className="card-form">
              <h3 className="mb-2 font-semibold">Add a passkey</h3>
              <AddPasskey factor={stepUpFactor} optionsAction={passkeyRegistrationOptionsAction} stepUpOptionsAction={accountStepUpOptionsAction} registerAction={registerPasskeyAction} />
            </div>
            {keys.map((key) => (
              <div className="card-form" key={key.id}>
                <h3 className="mb-2 font-semibold">Remove “{visibleText(key.name)}”</h3>
                <StepUpCardForm
                  factor={stepUpFactor}
                  stepUpOptionsAction={accountStepUpOptionsAction}
                  action={removePasskeyAction}
                  testId={`remove-passkey-${key.id}`}
                  hidden={{ passkeyId: key.id }}
                  submitLabel="Remove this passkey"
                />
              </div>
            ))}
          </div>
        </Section>
        <Section id="orgs" title="Organizations">
          {memberships.length === 0 ? <p className="text-sm text-slate-600">You do not belong to any organization yet.</p> : null}
          {runtime().env.PORTICO_ORG_CREATION === 'anyone' ? (
            <p className="mb-2 text-sm">
              <Link href="/console/orgs/new" className="underline" data-testid="new-org-link">
                Create an organization
              </Link>{' '}
              (you will be its owner).
            </p>
          ) : null}
          <ul className="grid gap-2">
            {memberships.map((membership) => (
              <li key={membership.orgId}>
                <Link href={`/console/${membership.slug}/apps`}>{membership.name}</Link> <span className="text-sm text-slate-500">· {membership.role}</span>
              </li>
            ))}
          </ul>
        </Section>
        <Section id="sessions" title="Where you are signed in">
          {done === 'session-ended' ? (
            <p role="status" className="mb-3 rounded-md bg-green-50 p-3 text-sm text-green-900" data-testid="session-ended">
              That session has ended. Refresh tokens it gave apps end with it; access tokens already issued end within 10 minutes.
            </p>
          ) : done === 'session-unknown' ? (
            <p role="status" className="mb-3 rounded-md bg-amber-50 p-3 text-sm text-amber-900">
              That session had already ended.
            </p>
          ) : done === 'session-current' ? (
            <p role="status" className="mb-3 rounded-md bg-amber-50 p-3 text-sm text-amber-900">
              To end this browser’s session, sign out.
            </p>
          ) : done === 'others-signed-out' ? (
            <p role="status" className="mb-3 rounded-md bg-green-50 p-3 text-sm text-green-900">
              Every other session has ended.
            </p>
          ) : null}
          <ul className="mb-4 grid grid-cols-1 gap-2" data-testid="account-sessions">
            {sessions.map((session) => {
              const label = `${SESSION_KINDS[session.kind]}${session.apps.length > 0 ? `: ${session.apps.join(', ')}` : ''}`;
              return (
                <li key={`${session.kind}:${session.id}`} className="flex items-center justify-between gap-3 rounded-md border border-slate-200 px-3 py-2" data-kind={session.kind}>
                  <div className="min-w-0 flex-1">
                    <p className="font-medium">
                      {SESSION_KINDS[session.kind]} {session.current ? <strong className="badge">This browser</strong> : null}
                    </p>
                    {session.apps.length > 0 ? (
                      <p className="text-sm" data-testid="session-apps">
                        {session.apps.map((name) => visibleText(name)).join(', ')}
                      </p>
                    ) : null}
                    <p className="text-sm text-slate-600">
                      Signed in <When value={session.since} />
                      {session.device ? <span className="block truncate">{visibleText(session.device)}</span> : null}
                    </p>
                  </div>
                  {session.current ? (
                    <form method="post" action="/console/session/end" className="shrink-0">
                      <button className="btn btn-secondary" type="submit">
                        Sign out
                      </button>
                    </form>
                  ) : (
                    <form method="post" action="/console/account/sessions/end" className="shrink-0">
                      <input type="hidden" name="kind" value={session.kind} />
                      <input type="hidden" name="id" value={session.id} />
                      <button className="btn btn-secondary" type="submit" aria-label={`Sign out of ${visibleText(label)}`}>
                        Sign out
                      </button>
                    </form>
                  )}
                </li>
              );
            })}
          </ul>
          <form method="post" action="/console/account/sign-out-everywhere">
            <button className="btn btn-danger" type="submit">
              Sign out everywhere else
            </button>
          </form>
          <p className="mt-2 text-xs text-slate-500">
            Ends every other console session, the central and every app sign-in. Access tokens already issued end within 10 minutes; apps given
            offline access keep it until you remove it from the app.
          </p>
        </Section>
        <Section id="sign-ins" title="Recent sign-ins" className="mt-6">
          {signIns.length === 0 ? <p className="text-sm text-slate-600">None recorded yet.</p> : null}
          <table className="table" data-testid="recent-sign-ins" style={columnLabels(['When', 'Where', 'From'])}>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Where</th>
                <th scope="col">From</th>
              </tr>
            </thead>
            <tbody>
              {signIns.map((signIn, index) => (
                <tr key={index}>
                  <td>
                    <When value={signIn.at} />
                  </td>
                  <td>{SURFACES[signIn.surface] ?? signIn.surface}{signIn.target ? ` · ${signIn.target}` : ''}</td>
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
