// A person's Portico sessions on every device, with "sign out everywhere".
import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { listSessions } from '@/lib/accounts/sessions';
import { findUserById } from '@/lib/accounts/users';
import { findBrowserSession } from '@/lib/oidc/interactions';
import { db, runtime } from '@/lib/runtime';
import { SignInFrame } from '../../auth/app/_components/sign-in-frame';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Your sessions' };

const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

export default async function SessionsPage(props: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { done } = await props.searchParams;
  const browser = await findBrowserSession(runtime().provider, (await headers()).get('cookie'));
  const user = browser ? await findUserById(db(), browser.accountId) : undefined;
  if (!user) {
    return (
      <SignInFrame>
        <h1>{done === 'signed-out-everywhere' ? 'Signed out everywhere' : 'Not signed in'}</h1>
        <p>
          {done === 'signed-out-everywhere'
            ? 'Every Portico session of your account has ended, on every device. Apps will ask for your password again.'
            : 'This browser has no Portico session. Sign in to one of your apps first.'}
        </p>
      </SignInFrame>
    );
  }
  const sessions = await listSessions(db(), user.id);
  const current = browser?.sessionUid;
  return (
    <SignInFrame>
      <h1>Your sessions</h1>
      <p>
        Signed in as <strong>{user.email}</strong>. Each row is a browser or device where your account is signed in to Portico.
      </p>
      <ul className="session-list" data-testid="session-list">
        {sessions.map((session) => (
          <li key={session.uid}>
            <span>
              Signed in {dateFormat.format(session.signedInAt)} UTC
              {session.uid === current ? <strong className="badge">This browser</strong> : null}
            </span>
            <span className="muted nowrap">
              {session.clientIds.length} app{session.clientIds.length === 1 ? '' : 's'}
            </span>
          </li>
        ))}
      </ul>
      <form method="post" action="/account/sessions/sign-out-everywhere">
        <button className="button" type="submit">
          Sign out everywhere
        </button>
      </form>
      <p className="footnote">
        Apps that were already given an access token keep it until it expires (at most 10 minutes).
      </p>
    </SignInFrame>
  );
}
