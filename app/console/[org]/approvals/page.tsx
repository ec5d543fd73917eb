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

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Approvals' };


function access(entry: ApprovalHistoryEntry): string {
  const { request } = entry;
  const what = request.kind === 'root_access' ? 'root access' : `${request.profile} ${visibleText(request.resource)}`;
  return `${what}, ${request.durationSeconds === null ? 'permanent' : `${Math.round(request.durationSeconds / 60)} min`}`;
}

function outcome(entry: ApprovalHistoryEntry): ReactNode {
  const { request, grant, active } = entry;
  if (request.state === 'pending') return request.expiresAt <= new Date() ? 'Expired' : 'Pending';
  if (request.state !== 'approved') return request.state === 'denied' ? 'Denied' : 'Cancelled';
  if (!grant) return 'Approved (no grant: inconsistent)';
  if (grant.revokedAt)
    return (
      <>
        Revoked <When value={grant.revokedAt} relative={false} />
      </>
    );
  if (!active) return 'Grant expired';
  return grant.expiresAt ? (
    <>
      Granted until <When value={grant.expiresAt} />
    </>
  ) : (
    'Granted, permanent'
  );
}

export default async function ApprovalsPage(props: { params: Promise<{ org: string }> }) {
  const orgAccess = await requireOrgAccess((await props.params).org);
  // Each operator sees the requests of the apps they decide for (designated operators, or the owners when none are).
  const entries = await listOrgApprovals(db(), orgAccess.org.id, orgAccess.user.id);
  return (
    <>
      <PageHeader
        title="Approvals"
        description="Access that agents asked for, and what operators decided. Temporary, specific requests are decided in the operator central (/central); permanent, broad or elevated ones with the CLI. You see the requests of the apps you are an operator of (designated on the app's page; the owners when nobody is), and revoke their grants here."
      />
      {entries.length === 0 ? (
        <EmptyState title="No requests for you">When an agent asks for access to an app you are an operator of, its request and the decision appear here.</EmptyState>
      ) : (
        <div className="panel overflow-x-auto">
          <table className="table" data-testid="approvals-table" style={columnLabels(['Asked', 'By', 'App', 'Access', 'Reason', 'Outcome', null])}>
            <thead>
              <tr>
                <th>Asked</th>
                <th>By</th>
                <th>App</th>
                <th>Access</th>
                <th>Reason</th>
                <th>Outcome</th>
                <th aria-label="Actions" />
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
                    {entry.request.actor ? <div className="text-xs text-slate-500">agent {visibleText(entry.request.actor)}</div> : null}
                  </td>
                  <td>{entry.app}</td>
                  <td>{access(entry)}</td>
                  <td className="max-w-xs">{visibleText(entry.request.reason)}</td>
                  <td data-testid="approval-outcome">
                    {outcome(entry)}
                    {entry.request.state === 'pending' && !entry.request.centralEligible && entry.request.expiresAt > new Date() ? (
                      <div className="text-xs text-slate-600">
                        Decided with the CLI only, on the Portico host:
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
                        submitLabel="Revoke"
                        variant="danger"
                        hideSubmit={!entry.active}
                        confirm="The app’s next grant check is refused. Nothing the agent already did is undone."
                        confirmLabel="Yes, revoke"
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
        </div>
      )}
    </>
  );
}
