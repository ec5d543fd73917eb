// A page that does not exist inside an organization (an app id that is not one of its apps, a mistyped path): said
// inside the console, with its navigation, and answered with status 404. (No loading.tsx in this segment: a streamed
// page would have sent 200 before knowing.)
import Link from 'next/link';
import { getT } from '@/app/_lib/i18n/server';

export default async function OrgNotFound() {
  const t = await getT('notFound');
  return (
    <div className="panel" data-testid="console-not-found">
      <h1 className="mb-2 text-lg font-semibold">{t('title')}</h1>
      <p className="mb-4 text-sm text-slate-600">{t('inOrganization')}</p>
      <Link href="/console" className="btn btn-secondary">
        {t('backToConsole')}
      </Link>
    </div>
  );
}
