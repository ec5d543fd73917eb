// Shown once on a new app's page: its environment with the secrets, a copy button for each value and for all of them,
// what to do next, and "I have stored these", which forgets them (app/console/_lib/new-credentials.ts).
import { CopyButton } from '@/app/_components/copy-button';
import { DownloadButton } from '@/app/_components/download-button';
import { dismissNewCredentialsAction } from '../actions';
import { getT } from '@/app/_lib/i18n/server';

export async function NewCredentialsPanel(props: { org: string; appId: string; appName: string; lines: string[] }) {
  const all = props.lines.join('\n');
  const t = await getT('console.app.newCredentials');
  return (
    <section className="panel mb-6 border-amber-300 bg-amber-50" aria-labelledby="new-credentials-heading" data-testid="new-credentials">
      <h2 id="new-credentials-heading" className="mb-1 font-semibold">
        {t('title', { name: props.appName })}
      </h2>
      <p className="mb-3 text-sm text-slate-700">{t('description')}</p>
      <pre className="whitespace-pre-wrap break-all rounded-md bg-slate-900 p-3 text-xs text-slate-50" data-testid="secret-once" tabIndex={0} aria-label={t('shownOnce')}>
        {all}
      </pre>
      <ul className="mt-2 flex flex-wrap gap-2" aria-label={t('copyOne')}>
        {props.lines.map((line) => {
          const name = line.split('=')[0] ?? line;
          return (
            <li key={name}>
              <CopyButton text={line.slice(name.length + 1)} label={t('copyName', { name })} className="btn btn-secondary text-xs" />
            </li>
          );
        })}
        <li>
          <CopyButton text={all} label={t('copyAll')} className="btn btn-secondary text-xs" />
        </li>
        <li>
          <DownloadButton text={all} fileName="portico-app.env" className="btn btn-secondary text-xs" />
        </li>
      </ul>
      <h3 className="mb-1 mt-4 text-sm font-semibold">{t('next')}</h3>
      <ol className="mb-4 list-decimal pl-5 text-sm text-slate-700">
        <li>{t('step1')}</li>
        <li>{t('step2')}</li>
        <li>{t('step3')}</li>
      </ol>
      <form action={dismissNewCredentialsAction}>
        <input type="hidden" name="org" value={props.org} />
        <input type="hidden" name="appId" value={props.appId} />
        <button type="submit" className="btn btn-primary" data-testid="credentials-stored">
          {t('stored')}
        </button>
      </form>
    </section>
  );
}
