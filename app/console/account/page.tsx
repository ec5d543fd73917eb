// The signed-in person's own page: organizations, sessions on every device, sign out everywhere.
import type { Metadata } from 'next';
import Link from 'next/link';
import { listConsoleSessions } from '@/lib/accounts/console-sessions';
import { listMembershipsOf } from '@/lib/accounts/memberships';
import { listSessions } from '@/lib/accounts/sessions';
import { db } from '@/lib/runtime';
import { requireConsoleSession } from '../_lib/session';
import { PageHeader } from '../_components/page-header';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Your account' };

const time = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

export default async function AccountPage(props: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { user, tokenHash } = await requireConsoleSession();
  const { done } = await props.searchParams;
  const [memberships, consoleSessions, appSessions] = await Promise.all([
    listMembershipsOf(db(), user.id),
    listConsoleSessions(db(), user.id),
    listSessions(db(), user.id),
  ]);
  return (
    <div className="min-h-screen bg-slate-50">
      <main className="mx-auto max-w-3xl px-4 py-8">
        <p className="mb-4 text-sm">
          <Link href="/console">← Console</Link>
        </p>
        <PageHeader title="Your account" description={`Signed in as ${user.email}.`} />
        {done === 'others-signed-out' ? (
          <p role="status" className="mb-4 rounded-md bg-green-50 p-3 text-sm text-green-900">
            Every other session has ended.
          </p>
        ) : null}
        <section className="panel mb-6" aria-labelledby="orgs-heading">
          <h2 id="orgs-heading" className="mb-3 font-semibold">
            Organizations
          </h2>
          {memberships.length === 0 ? <p className="text-sm text-slate-600">You do not belong to any organization yet.</p> : null}
          <ul className="grid gap-2">
            {memberships.map((membership) => (
              <li key={membership.orgId}>
                <Link href={`/console/${membership.slug}/apps`}>{membership.name}</Link> <span className="text-sm text-slate-500">· {membership.role}</span>
              </li>
            ))}
          </ul>
        </section>
        <section className="panel" aria-labelledby="sessions-heading">
          <h2 id="sessions-heading" className="mb-3 font-semibold">
            Sessions
          </h2>
          <table className="table mb-4" data-testid="account-sessions">
            <thead>
              <tr>
                <th scope="col">Where</th>
                <th scope="col">Since (UTC)</th>
                <th scope="col">Device</th>
              </tr>
            </thead>
            <tbody>
              {consoleSessions.map((session) => (
                <tr key={session.tokenHash}>
                  <td>
                    Console {session.tokenHash === tokenHash ? <strong className="badge">This browser</strong> : null}
                  </td>
                  <td>{time.format(session.createdAt)}</td>
                  <td className="text-slate-600">{session.userAgent?.slice(0, 60) ?? '—'}</td>
                </tr>
              ))}
              {appSessions.map((session) => (
                <tr key={session.uid}>
                  <td>App sign-in ({session.clientIds.length} app{session.clientIds.length === 1 ? '' : 's'})</td>
                  <td>{time.format(session.signedInAt)}</td>
                  <td className="text-slate-600">—</td>
                </tr>
              ))}
            </tbody>
          </table>
          <form method="post" action="/console/account/sign-out-everywhere">
            <button className="btn btn-danger" type="submit">
              Sign out everywhere else
            </button>
          </form>
          <p className="mt-2 text-xs text-slate-500">Ends every other console session and every app sign-in session. Access tokens already issued end within 10 minutes.</p>
        </section>
      </main>
    </div>
  );
}
