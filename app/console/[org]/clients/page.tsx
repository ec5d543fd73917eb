import type { Metadata } from 'next';
import { When } from '@/app/_components/when';
import { listApps } from '@/lib/clients/apps';
import { listOrgClients, MAX_EXTERNAL_REDIRECT_URIS, type OrgClientListing } from '@/lib/clients/external';
import { db } from '@/lib/runtime';
import { requireOrgAccess } from '../../_lib/access';
import { ActionForm } from '../../_components/action-form';
import { Field, Select, TextArea } from '../../_components/fields';
import { columnLabels, EmptyState, PageHeader } from '../../_components/page-header';
import { createExternalClientAction, revokeClientAction } from './actions';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Clients' };

const KIND_LABELS: Record<OrgClientListing['kind'], string> = {
  external: 'External (registered here)',
  dynamic: 'Dynamic registration',
  cimd: 'Metadata document',
};

export default async function ClientsPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  if (!access.can('clients.manage')) return <PageHeader title="Clients" description="Only the organization’s owners and admins manage clients." />;
  const org = access.org.slug;
  const [clients, apps] = await Promise.all([listOrgClients(db(), access.org.id), listApps(db(), org)]);
  return (
    <>
      <PageHeader
        title="Clients"
        description="MCP clients that reach this organization's apps: external clients registered here, and clients that registered themselves or use a metadata document once one of your members let them in. Revoking one ends its access to that app only."
      />
      <section className="panel mb-6" aria-label="Register an external client">
        <h2 className="mb-3 text-lg font-semibold">Register an external client</h2>
        {apps.length === 0 ? (
          <p className="text-sm text-slate-500">Create an app first: an external client reaches exactly one app.</p>
        ) : (
          <ActionForm action={createExternalClientAction} org={org} submitLabel="Register client" testId="register-client">
            <Select label="App" name="appId" options={apps.map((row) => ({ value: row.app.id, label: row.app.name }))} />
            <Field label="Label" name="label" required maxLength={80} placeholder="Support team's Claude" />
            <TextArea
              label="Redirect URIs"
              name="redirectUris"
              required
              placeholder={'http://127.0.0.1/callback\nhttps://client.example/callback'}
              hint={`One per line, at most ${MAX_EXTERNAL_REDIRECT_URIS}: https, http on localhost/127.0.0.1/[::1], or a private-use scheme such as com.example.app:/callback.`}
            />
          </ActionForm>
        )}
      </section>
      {clients.length === 0 ? (
        <EmptyState title="No clients yet">External clients you register, and MCP clients your members connect, appear here.</EmptyState>
      ) : (
        <div className="panel overflow-x-auto">
          <table className="table" data-testid="clients-table" style={columnLabels(['Client', 'App', 'Kind', 'Redirect URIs', 'Consents', 'Status', null])}>
            <thead>
              <tr>
                <th>Client</th>
                <th>App</th>
                <th>Kind</th>
                <th>Redirect URIs</th>
                <th>Consents</th>
                <th>Status</th>
                <th aria-label="Actions" />
              </tr>
            </thead>
            <tbody>
              {clients.map((client) => (
                <tr key={`${client.clientId}-${client.app.id}`} data-testid={`client-${client.clientId}`}>
                  <td>
                    <div className="font-medium">{client.name}</div>
                    <code className="text-xs break-all text-slate-500">{client.clientId}</code>
                  </td>
                  <td>{client.app.name}</td>
                  <td>{KIND_LABELS[client.kind]}</td>
                  <td>
                    <ul className="grid gap-1">
                      {client.redirectUris.map((uri) => (
                        <li key={uri}>
                          <code className="text-xs break-all">{uri}</code>
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td>{client.consents}</td>
                  <td>{client.revokedAt ? <span className="text-red-700">
                        Revoked <When value={client.revokedAt} relative={false} />
                      </span> : 'Active'}</td>
                  <td>
                    {/* Stays mounted once revoked (without its button) so the outcome it reports stays visible. */}
                    <ActionForm
                      action={revokeClientAction}
                      org={org}
                      submitLabel="Revoke"
                      variant="danger"
                      inline
                      hideSubmit={Boolean(client.revokedAt)}
                      confirm={`Revoke ${client.name} at ${client.app.name}? It cannot sign anyone in there again, and its live connections end now.`}
                      confirmLabel="Yes, revoke"
                    >
                      <input type="hidden" name="appId" value={client.app.id} />
                      <input type="hidden" name="clientId" value={client.clientId} />
                    </ActionForm>
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
