import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { appEnvironmentLines } from '@/lib/clients/app-environment';
import { appClientRegistration, findOrgApp, listRedirectUris } from '@/lib/clients/apps';
import { db, runtime } from '@/lib/runtime';
import { requireOrgAccess } from '../../../_lib/access';
import { ActionForm } from '../../../_components/action-form';
import { Field } from '../../../_components/fields';
import { ReadOnlyNotice } from '../../../_components/page-header';
import { addPostLogoutRedirectUriAction, addRedirectUriAction, deleteAppAction, removePostLogoutRedirectUriAction, setAppDisabledAction, updateAppAction } from '../actions';
import { RedirectUriList } from '../redirect-uri-list';
import { newCredentialsFor } from '../../../_lib/new-credentials';
import { NewCredentialsPanel } from './new-credentials-panel';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'App overview' };

export default async function AppPage(props: { params: Promise<{ org: string; app: string }> }) {
  const params = await props.params;
  const access = await requireOrgAccess(params.org);
  const listing = await findOrgApp(db(), access.org.id, params.app);
  if (!listing) notFound();
  const { app, clientId } = listing;
  const [uris, registration, newCredentials] = await Promise.all([listRedirectUris(db(), clientId), appClientRegistration(db(), clientId), newCredentialsFor(app.id, access.consoleSession)]);
  const manage = access.can('apps.manage');
  const org = access.org.slug;
  return (
    <>
      {manage ? null : <ReadOnlyNotice />}
      {newCredentials ? <NewCredentialsPanel org={org} appId={app.id} appName={app.name} lines={newCredentials} /> : null}
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <section className="panel" aria-labelledby="identity-heading">
          <h2 id="identity-heading" className="mb-3 font-semibold">
            Identity variables
          </h2>
          <pre className="overflow-x-auto rounded-md bg-slate-100 p-3 text-xs" data-testid="app-env" tabIndex={0} aria-label="Identity variables">
            {appEnvironmentLines({ issuer: runtime().env.PORTICO_ISSUER, clientId, appIdentity: app.identity }).join('\n')}
          </pre>
          <p className="mt-3 text-sm text-slate-600" data-testid="id-token-alg">
            ID tokens are signed with <code>{registration.idTokenAlg}</code> (the keys at <code>/oidc/jwks</code>). A relying party that accepts only RS256 unless told must be told: go-oidc, for one.
          </p>
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
        <section className="panel lg:col-span-2" aria-labelledby="logout-returns-heading">
          <h2 id="logout-returns-heading" className="mb-1 font-semibold">
            Sign-out return addresses
          </h2>
          <p className="mb-3 text-sm text-slate-600">
            Where Portico may send a person back after the app signs them out (<code>post_logout_redirect_uri</code>), matched exactly. None: Portico shows its own signed-out page.
          </p>
          <RedirectUriList
            org={org}
            appId={app.id}
            uris={registration.postLogoutRedirectUris.map((uri) => ({ id: uri, uri }))}
            manage={manage}
            testId="post-logout-uris"
            removeAction={removePostLogoutRedirectUriAction}
            removalWarning={(uri) => `Sign-outs will no longer return to ${uri}.`}
          />
          {manage ? (
            <ActionForm action={addPostLogoutRedirectUriAction} org={org} submitLabel="Add return address" inline testId="add-post-logout-uri">
              <input type="hidden" name="appId" value={app.id} />
              <Field label="New sign-out return address" name="postLogoutRedirectUri" required placeholder="https://app.example.com/signed-out" />
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
    </>
  );
}
