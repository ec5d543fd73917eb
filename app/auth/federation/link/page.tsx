// The link page: a sign-in through a company's identity provider found an existing Portico account with the same
// address. The account proves itself once (its password; its second factor follows when it has one) before the
// identity provider's subject is linked to it — an identity provider cannot take over an account it did not make.
import type { Metadata } from 'next';
import { cookies } from 'next/headers';
import { getT } from '@/app/_lib/i18n/server';
import { FEDERATION_COOKIE, pendingLink } from '@/lib/identity/federation/core';
import { db } from '@/lib/runtime';
import { SignInFrame } from '../../app/_components/sign-in-frame';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('signIn'))('pageTitle') };
}

export default async function LinkPage(props: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { wrong } = await props.searchParams;
  const t = await getT('federation');
  const signIn = await getT('signIn');
  const pending = await pendingLink(db(), (await cookies()).get(FEDERATION_COOKIE)?.value);
  if (!pending) {
    return (
      <SignInFrame>
        <h1>{t('linkExpiredTitle')}</h1>
        <p>{t('linkExpiredBody')}</p>
      </SignInFrame>
    );
  }
  const attemptsLeft = typeof wrong === 'string' && /^[0-9]$/.test(wrong) ? Number(wrong) : undefined;
  return (
    <SignInFrame>
      <h1>{t('linkTitle', { connection: pending.connection.name })}</h1>
      <p>{t('linkBody', { email: pending.user.email, connection: pending.connection.name })}</p>
      {pending.user.passwordHash ? (
        <form method="post" action="/auth/federation/link/prove">
          <input type="hidden" name="email" value={pending.user.email} autoComplete="username" />
          <div className="field">
            <label htmlFor="password">{signIn('password')}</label>
            <input
              id="password"
              name="password"
              type="password"
              autoComplete="current-password"
              required
              maxLength={1024}
              autoFocus
              aria-invalid={attemptsLeft !== undefined ? true : undefined}
              aria-describedby={attemptsLeft !== undefined ? 'link-error' : undefined}
            />
            {attemptsLeft !== undefined ? (
              <p className="field-error" id="link-error" role="alert" data-testid="link-error">
                {t('linkWrong', { attemptsLeft })}
              </p>
            ) : null}
          </div>
          <button className="button" type="submit">
            {t('linkSubmit')}
          </button>
        </form>
      ) : (
        <p data-testid="link-no-password">{t('linkNoPassword')}</p>
      )}
    </SignInFrame>
  );
}
