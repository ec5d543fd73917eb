// The central's page frame: who is signed in, and sign-out (which undoes nothing already decided).
import type { ReactNode } from 'react';
import { getT } from '@/app/_lib/i18n/server';

export async function CentralFrame({ email, children }: { email?: string; children: ReactNode }) {
  const t = await getT('central.frame');
  return (
    <div className="mx-auto max-w-3xl p-4 sm:p-6">
      {/* On a phone the operator's address and sign-out wrap under the title instead of pushing past the screen. */}
      <header className="mb-6 flex flex-wrap items-center justify-between gap-x-4 gap-y-2">
        <a href="/central" className="text-lg font-semibold">
          {t('title')}
        </a>
        {email ? (
          <form method="post" action="/central/session/end" className="flex min-w-0 flex-wrap items-center gap-3 text-sm">
            <span data-testid="central-operator" className="break-all">
              {email}
            </span>
            <button type="submit" className="btn btn-secondary">
              {t('signOut')}
            </button>
          </form>
        ) : null}
      </header>
      {children}
    </div>
  );
}
