// /console/inbox – everything waiting for me, across my organizations: calls I must confirm and approval requests I
// may decide. Each links to the page where it is decided (the confirmation page, the central).
import type { Metadata } from 'next';
import Link from 'next/link';
import { centralRequestUrl } from '@/lib/approvals/central-urls';
import { inboxConfirmations, inboxRequests } from '@/lib/notifications/inbox';
import { visibleText } from '@/lib/util/visible-text';
import { getT } from '@/app/_lib/i18n/server';
import { db } from '@/lib/runtime';
import { When } from '../../_components/when';
import { requireConsoleSession } from '../_lib/session';
import { DataTable, EmptyState, PageHeader } from '../_components/page-header';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.inbox'))('title') };
}

export default async function InboxPage() {
  const { user } = await requireConsoleSession();
  const [confirmations, requests] = await Promise.all([inboxConfirmations(db(), user), inboxRequests(db(), user)]);
  const t = await getT('console.inbox');
  return (
    <div className="min-h-screen bg-slate-50">
      <main className="mx-auto max-w-5xl px-4 py-8">
        <p className="mb-4 text-sm">
          <Link href="/console">{t('backToConsole')}</Link>
        </p>
        <PageHeader title={t('title')} description={t('description', { count: confirmations.length + requests.length })} />

        <h2 className="mb-2 font-semibold" data-testid="inbox-confirmations-heading">
          {t('confirmations.title', { count: confirmations.length })}
        </h2>
        {confirmations.length === 0 ? (
          <EmptyState title={t('confirmations.empty')} />
        ) : (
          <DataTable testId="inbox-confirmations" columns={[t('columns.call'), t('columns.where'), t('columns.until')]}>
            {confirmations.map((item) => (
              <tr key={item.id}>
                <td>
                  <Link href={`/console/confirm/${item.id}`}>{t('confirmations.open', { tool: visibleText(item.tool) })}</Link>
                  <span className="block text-xs text-slate-600">
                    {t('confirmations.risk', { risk: item.riskLevel })}
                    {item.agent ? ` · ${t('confirmations.agent', { agent: visibleText(item.agent) })}` : ''}
                  </span>
                </td>
                <td className="text-sm">{[item.organization, item.app ?? 'Portico'].filter(Boolean).map((part) => visibleText(part)).join(' · ')}</td>
                <td className="text-sm">
                  <When value={item.expiresAt} />
                </td>
              </tr>
            ))}
          </DataTable>
        )}

        <h2 className="mb-2 mt-8 font-semibold" data-testid="inbox-requests-heading">
          {t('requests.title', { count: requests.length })}
        </h2>
        {requests.length === 0 ? (
          <EmptyState title={t('requests.empty')} />
        ) : (
          <DataTable testId="inbox-requests" columns={[t('columns.request'), t('columns.where'), t('columns.until')]}>
            {requests.map((view) => (
              <tr key={view.id}>
                <td>
                  <a href={centralRequestUrl(view.id)}>{t('requests.open', { person: visibleText(view.askedBy), kind: view.policyKind })}</a>
                  <span className="block text-xs text-slate-600">
                    {[view.resource ? visibleText(view.resource) : '', view.quorum > 1 ? t('requests.approvals', { approvals: view.votes.filter((vote) => vote.decision === 'approve').length, quorum: view.quorum }) : '']
                      .filter(Boolean)
                      .join(' · ')}
                  </span>
                </td>
                <td className="text-sm">{visibleText(view.app)}</td>
                <td className="text-sm">
                  <When value={view.expiresAt} />
                </td>
              </tr>
            ))}
          </DataTable>
        )}
        <p className="mt-6 text-sm text-slate-600">
          {t.rich('settings', { link: (chunks) => <Link href="/console/account#notifications">{chunks}</Link> })}
        </p>
      </main>
    </div>
  );
}
