// The central's page frame: who is signed in, and sign-out (which undoes nothing already decided).
import type { ReactNode } from 'react';
import { getT } from '@/lib/i18n/server';

export async function CentralFrame({ email, children }: { email?: string; children: ReactNode }) {
  const t = await getT('central.frame');
  return (
    <div className="mx-auto max-w-3xl p-6">
      <header className="mb-6 flex items-center justify-between">
        <a href="/central" className="text-lg font-semibold">
          {t('title')}
        </a>
        {email ? (
          <form method="post" action="/central/session/end" className="flex items-center gap-3 text-sm">
            <span data-testid="central-operator">{email}</span>
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
