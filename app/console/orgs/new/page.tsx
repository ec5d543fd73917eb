// /console/orgs/new: a signed-in person creates an organization and becomes its owner (unless the installation keeps
// that to its operators: PORTICO_ORG_CREATION=cli).
import type { Metadata } from 'next';
import Link from 'next/link';
import { runtime } from '@/lib/runtime';
import { CliCommand } from '../../../_components/cli-command';
import { PageHeader } from '../../_components/page-header';
import { requireConsoleSession } from '../../_lib/session';
import { NewOrgForm } from './new-org-form';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'New organization' };

export default async function NewOrganizationPage() {
  const { user } = await requireConsoleSession();
  const open = runtime().env.PORTICO_ORG_CREATION === 'anyone';
  return (
    <div className="min-h-screen bg-slate-50">
      <main className="mx-auto max-w-xl px-4 py-8">
        <p className="mb-4 text-sm">
          <Link href="/console">← Console</Link>
        </p>
        <PageHeader title="New organization" description={open ? `You (${user.email}) will be its owner: you can then invite people and publish apps.` : undefined} />
        <section className="panel">
          {open ? (
            <NewOrgForm />
          ) : (
            <div data-testid="org-creation-closed">
              <p className="mb-2 text-sm">On this installation, organizations are created by its operators, on the Portico host:</p>
              <CliCommand command="npm run portico -- orgs create --slug <slug> --name <name>" />
              <p className="text-sm text-slate-600">Ask them to create one and add you, or to invite you to an existing one.</p>
            </div>
          )}
        </section>
      </main>
    </div>
  );
}
