import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { appEnvironmentLines } from '@/lib/clients/app-environment';
import { appResource, findOrgApp, listRedirectUris } from '@/lib/clients/apps';
import { db, runtime } from '@/lib/runtime';
import { requireOrgAccess } from '../../../_lib/access';
import { ActionForm } from '../../../_components/action-form';
import { Field } from '../../../_components/fields';
import { PageHeader, ReadOnlyNotice } from '../../../_components/page-header';
import { addRedirectUriAction, updateAppAction } from '../actions';
import { RedirectUriList } from '../redirect-uri-list';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'App' };

export default async function AppPage(props: { params: Promise<{ org: string; app: string }> }) {
  const params = await props.params;
  const access = await requireOrgAccess(params.org);
  const listing = await findOrgApp(db(), access.org.id, params.app);
  if (!listing) notFound();
  const { app, clientId } = listing;
  const uris = await listRedirectUris(db(), clientId);
  const manage = access.can('apps.manage');
  const org = access.org.slug;
  return (
    <>
      <PageHeader
        title={app.name}
        description={`Resource ${appResource(app.publishOrigin)}`}
        actions={manage ? <Link className="btn btn-secondary" href={`/console/${org}/apps/${app.id}/security`}>Security</Link> : null}
      />
      {manage ? null : <ReadOnlyNotice />}
      <div className="grid gap-6 lg:grid-cols-2">
        <section className="panel" aria-labelledby="identity-heading">
          <h2 id="identity-heading" className="mb-3 font-semibold">
            Identity variables
          </h2>
          <pre className="overflow-x-auto rounded-md bg-slate-100 p-3 text-xs" data-testid="app-env">
            {appEnvironmentLines({ issuer: runtime().env.PORTICO_ISSUER, clientId, appIdentity: app.identity }).join('\n')}
          </pre>
        </section>
        {manage ? (
          <section className="panel" aria-labelledby="details-heading">
            <h2 id="details-heading" className="mb-3 font-semibold">
              Details
            </h2>
            <ActionForm action={updateAppAction} org={org} submitLabel="Save" testId="update-app">
              <input type="hidden" name="appId" value={app.id} />
              <Field label="Name" name="name" defaultValue={app.name} required maxLength={80} />
              <Field label="Publish address" name="origin" defaultValue={app.publishOrigin} required />
              <Field label="Avatar URL" name="avatarUrl" defaultValue={app.avatarUrl ?? ''} placeholder="https://…/logo.png" hint="Optional. Shown on the sign-in card." />
            </ActionForm>
          </section>
        ) : null}
        <section className="panel lg:col-span-2" aria-labelledby="redirects-heading">
          <h2 id="redirects-heading" className="mb-3 font-semibold">
            Redirect URIs
          </h2>
          <RedirectUriList org={org} appId={app.id} uris={uris} manage={manage} testId="redirect-uris" />
          {manage ? (
            <ActionForm action={addRedirectUriAction} org={org} submitLabel="Add redirect URI" inline testId="add-redirect-uri">
              <input type="hidden" name="appId" value={app.id} />
              <Field label="New redirect URI" name="redirectUri" required placeholder="https://app.example.com/callback" />
            </ActionForm>
          ) : null}
        </section>
      </div>
      <p className="mt-6 text-sm">
        <Link href={`/console/${org}/apps`}>Back to apps</Link>
      </p>
    </>
  );
}
