'use client';
// Shown when a console page fails: no internals, a way to retry.
import { useTranslations } from 'use-intl/react';

export default function ConsoleError({ reset }: { error: Error; reset: () => void }) {
  const t = useTranslations('consoleError');
  return (
    <div role="alert" className="panel">
      <h1 className="mb-2 text-lg font-semibold">{t('title')}</h1>
      <p className="mb-4 text-sm text-slate-600">{t('body')}</p>
      <button type="button" className="btn btn-primary" onClick={() => reset()}>
        {t('retry')}
      </button>
    </div>
  );
}
