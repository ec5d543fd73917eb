// /console/orgs/new: a signed-in person creates an organization and becomes its owner (unless the installation keeps
// that to its operators: PORTICO_ORG_CREATION=cli).
import type { Metadata } from 'next';
import Link from 'next/link';
import { getT } from '@/app/_lib/i18n/server';
import { runtime } from '@/lib/runtime';
import { CliCommand } from '../../../_components/cli-command';
import { PageHeader } from '../../_components/page-header';
import { requireConsoleSession } from '../../_lib/session';
import { NewOrgForm } from './new-org-form';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('orgs'))('pageTitle') };
}

export default async function NewOrganizationPage() {
  const { user } = await requireConsoleSession();
  const open = runtime().env.PORTICO_ORG_CREATION === 'anyone';
  const t = await getT('orgs');
  return (
    <div className="min-h-screen bg-slate-50">
      <main className="mx-auto max-w-xl px-4 py-8">
        <p className="mb-4 text-sm">
          <Link href="/console">{t('backToConsole')}</Link>
        </p>
        <PageHeader title={t('pageTitle')} description={open ? t('ownerNote', { email: user.email }) : undefined} />
        <section className="panel">
          {open ? (
            <NewOrgForm />
          ) : (
            <div data-testid="org-creation-closed">
              <p className="mb-2 text-sm">{t('closedIntro')}</p>
              <CliCommand command="npm run portico -- orgs create --slug <slug> --name <name>" />
              <p className="text-sm text-slate-600">{t('closedAsk')}</p>
            </div>
          )}
        </section>
      </main>
    </div>
  );
}
