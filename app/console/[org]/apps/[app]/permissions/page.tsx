// An app's permission catalog: what may be granted on it — the baseline, the scopes its surface declares, and the
// ones admins added — each with a description people read on consent screens and pickers.
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { findOrgApp } from '@/lib/clients/apps';
import { explainPermissions } from '@/lib/accounts/effective-permissions';
import { PermissionExplanationList } from '../../../../_components/permission-explanation';
import { listPermissionCatalog } from '@/lib/clients/permission-catalog';
import { db } from '@/lib/runtime';
import { visibleText } from '@/lib/util/visible-text';
import { requireOrgAccess } from '../../../../_lib/access';
import { ActionForm, ConfirmedAction } from '../../../../_components/action-form';
import { Field } from '../../../../_components/fields';
import { DataTable, EmptyState, ReadOnlyNotice, Section } from '../../../../_components/page-header';
import { addPermissionAction, describePermissionAction, restorePermissionAction, retirePermissionAction } from './actions';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Permissions' };

function sourceOf(entry: { baseline: boolean; declared: boolean; added: boolean }): string {
  if (entry.baseline) return 'Baseline: every member holds it';
  return [entry.declared ? 'declared by the app' : '', entry.added ? 'added by an admin' : ''].filter(Boolean).join(', ');
}

export default async function PermissionsPage(props: { params: Promise<{ org: string; app: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await props.params;
  const { subject } = await props.searchParams;
  const access = await requireOrgAccess(params.org);
  const listing = await findOrgApp(db(), access.org.id, params.app);
  if (!listing) notFound();
  const { app } = listing;
  const catalog = await listPermissionCatalog(db(), app.id);
  const asked = typeof subject === 'string' && subject.trim() !== '' && access.can('members.read') ? subject.trim().slice(0, 320) : undefined;
  const explanation = asked ? await explainPermissions(db(), { orgId: access.org.id, appId: app.id, subject: asked }) : undefined;
  const manage = access.can('apps.manage');
  const org = access.org.slug;
  return (
    <>
      <p className="mb-4 max-w-2xl text-sm text-slate-600">
        What may be granted on this app: the baseline every member holds, every scope its tools declare, and the permissions you add — each with
        the short description people read.
      </p>
      {manage ? null : <ReadOnlyNotice />}
      {manage ? (
        <Section id="add-permission" title="Add a permission">
          <ActionForm action={addPermissionAction} org={org} submitLabel="Add permission" testId="add-permission">
            <input type="hidden" name="appId" value={app.id} />
            <div className="flex flex-wrap items-end gap-2">
              <Field label="Permission (scope)" name="scope" required maxLength={64} placeholder="invoices:read" />
              <Field label="Description" name="description" required maxLength={200} placeholder="Read invoices" />
            </div>
          </ActionForm>
        </Section>
      ) : null}
      <Section id="explain" title="Who can do what">
        <p className="mb-3 text-sm text-slate-600">
          A person’s permissions here are the baseline, their teams’ grants and their direct grants; an agent acting as itself holds only its own direct grants, and an agent acting for a person holds that person’s. Only permissions of this catalog count, and a token for this app carries exactly these, of what it asks for (from its next refresh).
        </p>
        <form method="get" className="flex flex-wrap items-end gap-2" data-testid="explain-form">
          <div className="grid gap-1">
            <label htmlFor="subject" className="text-sm font-medium text-slate-800">
              Person (email) or agent (agt_…)
            </label>
            <input id="subject" name="subject" className="input" defaultValue={asked ?? ''} maxLength={320} required />
          </div>
          <button type="submit" className="btn btn-secondary">
            Explain
          </button>
        </form>
        {asked && !explanation ? (
          <p role="status" className="mt-3 text-sm text-red-800" data-testid="explain-none">
            No person or agent “{visibleText(asked)}” in this organization.
          </p>
        ) : null}
        {explanation ? (
          <div className="mt-3" data-testid="explanation">
            <p className="mb-2 text-sm">
              <strong>{visibleText(explanation.subject.label)}</strong>
              {explanation.subject.kind === 'agent' ? ` (agent, ${explanation.subject.mode === 'delegated' ? 'acting for a person' : 'acting as itself'})` : ''}
              {explanation.permissions.length === 0 ? '' : ' holds:'}
            </p>
            <PermissionExplanationList permissions={explanation.permissions} emptyText="Holds no permission on this app." />
          </div>
        ) : null}
      </Section>
      {catalog.length === 0 ? (
        <EmptyState title="No permissions" />
      ) : (
        <DataTable testId="permission-catalog" columns={['Permission', 'Description', 'Source']} actions={manage}>
          {catalog.map((entry) => (
            <tr key={entry.scope} data-scope={entry.scope} className={entry.retired ? 'opacity-60' : undefined}>
              <td>
                <code>{entry.scope}</code>
                {entry.retired ? <span className="badge">Retired</span> : null}
              </td>
              <td>
                {visibleText(entry.description)}
                {entry.tools.length > 0 ? <div className="text-xs text-slate-500">Tools: {entry.tools.map((tool) => visibleText(tool)).join(', ')}</div> : null}
              </td>
              <td className="text-sm">{sourceOf(entry)}</td>
              {manage ? (
                <td className="grid gap-2">
                  {entry.baseline ? null : entry.retired ? (
                    <ActionForm action={restorePermissionAction} org={org} submitLabel="Restore" variant="secondary" inline>
                      <input type="hidden" name="appId" value={app.id} />
                      <input type="hidden" name="scope" value={entry.scope} />
                    </ActionForm>
                  ) : (
                    <>
                      <ActionForm action={describePermissionAction} org={org} submitLabel="Save description" variant="secondary" inline>
                        <input type="hidden" name="appId" value={app.id} />
                        <input type="hidden" name="scope" value={entry.scope} />
                        <Field label="Description" id={`description-${entry.scope}`} name="description" defaultValue={entry.description} required maxLength={200} />
                      </ActionForm>
                      <ConfirmedAction
                        action={retirePermissionAction}
                        org={org}
                        label="Retire"
                        confirm={`Retire ${entry.scope}? It leaves the catalog (you can restore it later).`}
                        confirmLabel="Yes, retire"
                        fields={{ appId: app.id, scope: entry.scope }}
                      />
                    </>
                  )}
                </td>
              ) : null}
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}
