// An app's permission catalog: what may be granted on it — the baseline, the scopes its surface declares, and the
// ones admins added — each with a description people read on consent screens and pickers.
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { findOrgApp } from '@/lib/clients/apps';
import { listPermissionCatalog } from '@/lib/clients/permission-catalog';
import { db } from '@/lib/runtime';
import { visibleText } from '@/lib/util/visible-text';
import { requireOrgAccess } from '../../../../_lib/access';
import { ActionForm } from '../../../../_components/action-form';
import { Field } from '../../../../_components/fields';
import { EmptyState, PageHeader, ReadOnlyNotice, Section } from '../../../../_components/page-header';
import { addPermissionAction, describePermissionAction, restorePermissionAction, retirePermissionAction } from './actions';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Permissions' };

function sourceOf(entry: { baseline: boolean; declared: boolean; added: boolean }): string {
  if (entry.baseline) return 'Baseline: every member holds it';
  return [entry.declared ? 'declared by the app' : '', entry.added ? 'added by an admin' : ''].filter(Boolean).join(', ');
}

export default async function PermissionsPage(props: { params: Promise<{ org: string; app: string }> }) {
  const params = await props.params;
  const access = await requireOrgAccess(params.org);
  const listing = await findOrgApp(db(), access.org.id, params.app);
  if (!listing) notFound();
  const { app } = listing;
  const catalog = await listPermissionCatalog(db(), app.id);
  const manage = access.can('apps.manage');
  const org = access.org.slug;
  return (
    <>
      <p className="mb-4 text-sm">
        <Link href={`/console/${org}/apps/${app.id}`}>← {app.name}</Link>
      </p>
      <PageHeader
        title={`Permissions of ${app.name}`}
        description="What may be granted on this app: the baseline every member holds, every scope its tools declare, and the permissions you add — each with the short description people read."
      />
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
      {catalog.length === 0 ? (
        <EmptyState title="No permissions" />
      ) : (
        <div className="panel overflow-x-auto p-0">
          <table className="table" data-testid="permission-catalog">
            <thead>
              <tr>
                <th scope="col">Permission</th>
                <th scope="col">Description</th>
                <th scope="col">Source</th>
                {manage ? <th scope="col">Actions</th> : null}
              </tr>
            </thead>
            <tbody>
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
                          <ActionForm
                            action={retirePermissionAction}
                            org={org}
                            submitLabel="Retire"
                            variant="secondary"
                            confirm={`Retire ${entry.scope}? It leaves the catalog (you can restore it later).`}
                            confirmLabel="Yes, retire"
                          >
                            <input type="hidden" name="appId" value={app.id} />
                            <input type="hidden" name="scope" value={entry.scope} />
                          </ActionForm>
                        </>
                      )}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
