// The organization's approvals: requests and their decisions, newest first, and the grants in force, which the
// operators (owners) can revoke. Decisions themselves are taken in the operator central or with the CLI.
import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { When } from '@/app/_components/when';
import { visibleText } from '@/lib/util/visible-text';
import { listOrgApprovals, type ApprovalHistoryEntry } from '@/lib/approvals/broker';
import { db } from '@/lib/runtime';
import { requireOrgAccess } from '../../_lib/access';
import { ActionForm } from '../../_components/action-form';
import { columnLabels, EmptyState, PageHeader } from '../../_components/page-header';
import { revokeGrantAction } from './actions';
import { CliCommand } from '../../../_components/cli-command';
import type { Translator } from '@/lib/i18n/catalogs';
import { getT } from '@/app/_lib/i18n/server';
import { ScrollPanel } from '@/app/console/_components/scroll-panel';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.approvals'))('pageTitle') };
}

type ApprovalsTranslator = Translator<'console.approvals'>;

function access(t: ApprovalsTranslator, entry: ApprovalHistoryEntry): string {
  const { request } = entry;
  const what = request.kind === 'root_access' ? t('rootAccess') : t('sensitiveAccess', { profile: request.profile ?? '', resource: visibleText(request.resource) });
  return request.durationSeconds === null ? t('accessPermanent', { what }) : t('accessMinutes', { what, minutes: Math.round(request.durationSeconds / 60) });
}

function outcome(t: ApprovalsTranslator, entry: ApprovalHistoryEntry): ReactNode {
  const { request, grant, active } = entry;
  if (request.state === 'expired' || (request.state === 'pending' && request.expiresAt <= new Date())) return t('outcomes.expired');
  if (request.state === 'pending') return t('outcomes.pending');
  if (request.state !== 'approved') return request.state === 'denied' ? t('outcomes.denied') : t('outcomes.cancelled');
  if (!grant) return t('outcomes.inconsistent');
  if (grant.revokedAt) return t.rich('outcomes.revoked', { when: () => <When value={grant.revokedAt!} relative={false} /> });
  if (!active) return t('outcomes.grantExpired');
  return grant.expiresAt ? t.rich('outcomes.grantedUntil', { when: () => <When value={grant.expiresAt!} /> }) : t('outcomes.permanent');
}

export default async function ApprovalsPage(props: { params: Promise<{ org: string }> }) {
  const orgAccess = await requireOrgAccess((await props.params).org);
  // Each operator sees the requests of the apps they decide for (designated operators, or the owners when none are).
  const entries = await listOrgApprovals(db(), orgAccess.org.id, orgAccess.user.id);
  const t = await getT('console.approvals');
  return (
    <>
      <PageHeader title={t('title')} description={t('description')} />
      {entries.length === 0 ? (
        <EmptyState title={t('empty.title')}>{t('empty.body')}</EmptyState>
      ) : (
        <ScrollPanel>
          <table
            className="table"
            data-testid="approvals-table"
            style={columnLabels([t('columns.asked'), t('columns.by'), t('columns.app'), t('columns.access'), t('columns.reason'), t('columns.outcome'), null])}
          >
            <thead>
              <tr>
                <th>{t('columns.asked')}</th>
                <th>{t('columns.by')}</th>
                <th>{t('columns.app')}</th>
                <th>{t('columns.access')}</th>
                <th>{t('columns.reason')}</th>
                <th>{t('columns.outcome')}</th>
                <th aria-label={t('columns.actions')} />
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.request.id} data-testid={`approval-${entry.request.id}`}>
                  <td>
                    <When value={entry.request.createdAt} />
                  </td>
                  <td>
                    {entry.askedBy}
                    {entry.request.actor ? <div className="text-xs text-slate-500">{t('agent', { agent: visibleText(entry.request.actor) })}</div> : null}
                  </td>
                  <td>{entry.app}</td>
                  <td>{access(t, entry)}</td>
                  <td className="max-w-xs">{visibleText(entry.request.reason)}</td>
                  <td data-testid="approval-outcome">
                    {outcome(t, entry)}
                    {entry.request.state === 'pending' && !entry.request.centralEligible && entry.request.expiresAt > new Date() ? (
                      <div className="text-xs text-slate-600">
                        {t('cliOnly')}
                        <CliCommand command={`npm run portico -- approvals approve ${entry.request.id}`} />
                      </div>
                    ) : null}
                  </td>
                  <td>
                    {entry.grant ? (
                      // Stays mounted once revoked (without its button) so its outcome stays visible.
                      <ActionForm
                        action={revokeGrantAction}
                        org={orgAccess.org.slug}
                        submitLabel={t('revoke')}
                        variant="danger"
                        hideSubmit={!entry.active}
                        confirm={t('confirmRevoke')}
                        confirmLabel={t('confirmRevokeLabel')}
                        testId={`revoke-${entry.grant.id}`}
                      >
                        <input type="hidden" name="grantId" value={entry.grant.id} />
                      </ActionForm>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollPanel>
      )}
    </>
  );
}
