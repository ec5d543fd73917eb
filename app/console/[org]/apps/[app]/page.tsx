import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { appEnvironmentLines } from '@/lib/clients/app-environment';
import { appResource, findOrgApp, listRedirectUris } from '@/lib/clients/apps';
import { listMembers } from '@/lib/accounts/memberships';
import { listAppOperators } from '@/lib/approvals/operators';
import { db, runtime } from '@/lib/runtime';
import { requireOrgAccess } from '../../../_lib/access';
import { ActionForm } from '../../../_components/action-form';
import { Field, Select } from '../../../_components/fields';
import { PageHeader, ReadOnlyNotice } from '../../../_components/page-header';
import { addRedirectUriAction, deleteAppAction, setAppDisabledAction, updateAppAction } from '../actions';
import { RedirectUriList } from '../redirect-uri-list';
import { designateOperatorAction, removeOperatorAction } from './operators-actions';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'App' };

export default async function AppPage(props: { params: Promise<{ org: string; app: string }> }) {
  const params = await props.params;
  const access = await requireOrgAccess(params.org);
  const listing = await findOrgApp(db(), access.org.id, params.app);
  if (!listing) notFound();
  const { app, clientId } = listing;
  const [uris, operators, members] = await Promise.all([listRedirectUris(db(), clientId), listAppOperators(db(), app.id), listMembers(db(), access.org.id)]);
  const canDesignate = access.can('approvals.decide');
  const manage = access.can('apps.manage');
  const org = access.org.slug;
  return (
    <>
      <PageHeader
        title={app.name}
        description={`Resource ${appResource(app.publishOrigin)}`}
        actions={
          <div className="flex gap-2">
            <Link className="btn btn-secondary" href={`/console/${org}/apps/${app.id}/permissions`}>
              Permissions
            </Link>
            {manage ? (
              <Link className="btn btn-secondary" href={`/console/${org}/apps/${app.id}/security`}>
                Security
              </Link>
            ) : null}
          </div>
        }
      />
      {manage ? null : <ReadOnlyNotice />}
      {app.disabledAt ? (
        <div className="alert alert-error mb-6" role="status" data-testid="app-disabled">
          This app is turned off: sign-ins are refused with a page that says so, and its clients get no tokens.
          {manage ? ' Turn it on again below.' : ''}
        </div>
      ) : null}
      <div className="grid gap-6 lg:grid-cols-2">
        <section className="panel" aria-labelledby="identity-heading">
          <h2 id="identity-heading" className="mb-3 font-semibold">
            Identity variables
          </h2>
          <pre className="overflow-x-auto rounded-md bg-slate-100 p-3 text-xs" data-testid="app-env" tabIndex={0} aria-label="Identity variables">
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
          <RedirectUriList org={org} appId={app.id} uris={uris} manage={manage} testId="redirect-uris" publishOrigin={app.publishOrigin} />
          {manage ? (
            <ActionForm action={addRedirectUriAction} org={org} submitLabel="Add redirect URI" inline testId="add-redirect-uri">
              <input type="hidden" name="appId" value={app.id} />
              <Field label="New redirect URI" name="redirectUri" required placeholder="https://app.example.com/callback" />
            </ActionForm>
          ) : null}
        </section>
        <section className="panel lg:col-span-2" aria-labelledby="operators-heading" data-testid="app-operators">
          <h2 id="operators-heading" className="mb-2 font-semibold">
            Approval operators
          </h2>
          <p className="mb-3 text-sm text-slate-600">
            {operators.length === 0
              ? 'Nobody is designated: the organization’s owners decide this app’s access requests in the operator central.'
              : 'These people decide this app’s access requests in the operator central (instead of the owners).'}
          </p>
          <ul className="mb-3 grid gap-2">
            {operators.map((operator) => (
              <li key={operator.userId} className="flex items-center justify-between gap-3 rounded-md border border-slate-200 px-3 py-2">
                <span>
                  {operator.name} <span className="text-slate-500">{operator.email}</span>
                </span>
                {canDesignate ? (
                  <ActionForm action={removeOperatorAction} org={org} submitLabel="Remove" variant="secondary" inline testId={`remove-operator-${operator.userId}`}>
                    <input type="hidden" name="appId" value={app.id} />
                    <input type="hidden" name="userId" value={operator.userId} />
                  </ActionForm>
                ) : null}
              </li>
            ))}
          </ul>
          {canDesignate ? (
            <ActionForm action={designateOperatorAction} org={org} submitLabel="Add operator" inline testId="add-operator">
              <input type="hidden" name="appId" value={app.id} />
              <Select label="Member" name="userId" options={members.filter((member) => !operators.some((operator) => operator.userId === member.userId)).map((member) => ({ value: member.userId, label: `${member.name} (${member.email})` }))} />
            </ActionForm>
          ) : null}
        </section>
        {manage ? (
          <section className="panel lg:col-span-2 border-red-200" aria-labelledby="lifecycle-heading" data-testid="app-lifecycle">
            <h2 id="lifecycle-heading" className="mb-1 font-semibold text-red-800">
              Turn off or delete
            </h2>
            <p className="mb-3 text-sm text-slate-600">
              {app.disabledAt
                ? 'The app is off. Turning it on lets people sign in again; grants and refresh tokens kept while it was off work again.'
                : 'Turning the app off refuses every sign-in (with a page that says so) and every new token, and keeps everything else, so you can turn it on again. Access tokens already issued end within 10 minutes.'}
            </p>
            <ActionForm
              action={setAppDisabledAction}
              org={org}
              submitLabel={app.disabledAt ? 'Turn the app on' : 'Turn the app off'}
              variant="secondary"
              inline
              testId="set-app-disabled"
            >
              <input type="hidden" name="appId" value={app.id} />
              <input type="hidden" name="disabled" value={app.disabledAt ? 'false' : 'true'} />
            </ActionForm>
            <h3 className="mb-1 mt-6 font-semibold text-red-800">Delete this app</h3>
            <p className="mb-3 text-sm text-slate-600">
              For good: its clients, permissions, grants, refresh tokens and access requests are deleted in one step, and every client connected to it
              loses access. The audit log keeps its history.
            </p>
            <ActionForm
              action={deleteAppAction}
              org={org}
              submitLabel="Delete app"
              variant="danger"
              confirm={`Delete ${app.name} for good? Sign-ins are refused at once and every refresh token ends; access tokens already issued end within 10 minutes.`}
              confirmLabel="Yes, delete it"
              testId="delete-app"
            >
              <input type="hidden" name="appId" value={app.id} />
              <Field label={`Type ${app.slug} to confirm`} name="confirmSlug" autoComplete="off" required />
            </ActionForm>
          </section>
        ) : null}
      </div>
      <p className="mt-6 text-sm">
        <Link href={`/console/${org}/apps`}>Back to apps</Link>
      </p>
    </>
  );
}
