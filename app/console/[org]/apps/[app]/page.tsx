import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { appEnvironmentLines } from '@/lib/clients/app-environment';
import { appClientRegistration, findOrgApp, ID_TOKEN_ALGS, listRedirectUris } from '@/lib/clients/apps';
import { db, runtime } from '@/lib/runtime';
import { requireOrgAccess } from '../../../_lib/access';
import { ActionForm } from '../../../_components/action-form';
import { Field, Select } from '../../../_components/fields';
import { ReadOnlyNotice } from '../../../_components/page-header';
import { addPostLogoutRedirectUriAction, addRedirectUriAction, deleteAppAction, removePostLogoutRedirectUriAction, saveAppDescriptionsAction, setAppDisabledAction, setIdTokenAlgAction, updateAppAction } from '../actions';
import { supportedLocales } from '@/lib/i18n/catalogs';
import { RedirectUriList } from '../redirect-uri-list';
import { newCredentialsFor } from '../../../_lib/new-credentials';
import { NewCredentialsPanel } from './new-credentials-panel';
import { BackchannelLogoutSection, SharedSignalsSection } from './backchannel-logout-section';
import { getT, requestLocale } from '@/app/_lib/i18n/server';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.app.overview'))('pageTitle') };
}

export default async function AppPage(props: { params: Promise<{ org: string; app: string }> }) {
  const params = await props.params;
  const access = await requireOrgAccess(params.org);
  const listing = await findOrgApp(db(), access.org.id, params.app);
  if (!listing) notFound();
  const { app, clientId } = listing;
  const [uris, registration, newCredentials] = await Promise.all([listRedirectUris(db(), clientId), appClientRegistration(db(), clientId), newCredentialsFor(app.id, access.consoleSession)]);
  const manage = access.can('apps.manage');
  const org = access.org.slug;
  const t = await getT('console.app.overview');
  return (
    <>
      {manage ? null : <ReadOnlyNotice />}
      {newCredentials ? <NewCredentialsPanel org={org} appId={app.id} appName={app.name} lines={newCredentials} /> : null}
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <section className="panel" aria-labelledby="identity-heading">
          <h2 id="identity-heading" className="mb-3 font-semibold">
            {t('identity')}
          </h2>
          <pre className="overflow-x-auto rounded-md bg-slate-100 p-3 text-xs" data-testid="app-env" tabIndex={0} aria-label={t('identity')}>
            {appEnvironmentLines({ issuer: runtime().env.PORTICO_ISSUER, clientId, appIdentity: app.identity, publicClient: registration.profile !== 'web', locale: await requestLocale() }).join('\n')}
          </pre>
          <p className="mt-3 text-sm text-slate-600" data-testid="app-profile" data-profile={registration.profile}>
            {t('profile', { profile: registration.profile })}
          </p>
          <p className="mt-3 text-sm text-slate-600" data-testid="id-token-alg">
            {t.rich('idTokenAlg', { alg: registration.idTokenAlg, code: (chunks) => <code>{chunks}</code> })}
          </p>
          {manage ? (
            <ActionForm action={setIdTokenAlgAction} org={org} submitLabel={t('idTokenAlgSave')} variant="secondary" testId="id-token-alg-form">
              <input type="hidden" name="appId" value={app.id} />
              <Select label={t('idTokenAlgLabel')} name="idTokenAlg" defaultValue={registration.idTokenAlg} options={ID_TOKEN_ALGS.map((alg) => ({ value: alg, label: alg }))} />
              <p className="text-xs text-slate-600">{t('idTokenAlgHint')}</p>
            </ActionForm>
          ) : null}
        </section>
        {manage ? (
          <section className="panel" aria-labelledby="details-heading">
            <h2 id="details-heading" className="mb-3 font-semibold">
              {t('details')}
            </h2>
            <ActionForm action={updateAppAction} org={org} submitLabel={t('save')} testId="update-app">
              <input type="hidden" name="appId" value={app.id} />
              <Field label={t('name')} name="name" defaultValue={app.name} required maxLength={80} />
              <Field label={t('origin')} name="origin" defaultValue={app.publishOrigin} required />
              <Field label={t('avatarUrl')} name="avatarUrl" defaultValue={app.avatarUrl ?? ''} placeholder="https://…/logo.png" hint={t('avatarUrlHint')} />
            </ActionForm>
          </section>
        ) : null}
        {manage ? <AppDescriptions org={org} appId={app.id} descriptions={app.descriptions} /> : null}
        <section className="panel lg:col-span-2" aria-labelledby="redirects-heading">
          <h2 id="redirects-heading" className="mb-3 font-semibold">
            {t('redirectUris')}
          </h2>
          <RedirectUriList org={org} appId={app.id} uris={uris} manage={manage} testId="redirect-uris" publishOrigin={app.publishOrigin} />
          {manage ? (
            <ActionForm action={addRedirectUriAction} org={org} submitLabel={t('addRedirectUri')} inline testId="add-redirect-uri">
              <input type="hidden" name="appId" value={app.id} />
              <Field label={t('newRedirectUri')} name="redirectUri" required placeholder="https://app.example.com/callback" />
            </ActionForm>
          ) : null}
        </section>
        <section className="panel lg:col-span-2" aria-labelledby="logout-returns-heading">
          <h2 id="logout-returns-heading" className="mb-1 font-semibold">
            {t('logoutUris')}
          </h2>
          <p className="mb-3 text-sm text-slate-600">{t.rich('logoutUrisDescription', { code: (chunks) => <code>{chunks}</code> })}</p>
          <RedirectUriList
            org={org}
            appId={app.id}
            uris={registration.postLogoutRedirectUris.map((uri) => ({ id: uri, uri }))}
            manage={manage}
            testId="post-logout-uris"
            removeAction={removePostLogoutRedirectUriAction}
            removalWarning={(uri) => t('logoutUriRemoval', { uri })}
          />
          {manage ? (
            <ActionForm action={addPostLogoutRedirectUriAction} org={org} submitLabel={t('addLogoutUri')} inline testId="add-post-logout-uri">
              <input type="hidden" name="appId" value={app.id} />
              <Field label={t('newLogoutUri')} name="postLogoutRedirectUri" required placeholder="https://app.example.com/signed-out" />
            </ActionForm>
          ) : null}
        </section>
        <BackchannelLogoutSection org={org} appId={app.id} appName={app.name} clientId={clientId} manage={manage} />
        <SharedSignalsSection clientId={clientId} />
        {manage ? (
          <section className="panel lg:col-span-2 border-red-200" aria-labelledby="lifecycle-heading" data-testid="app-lifecycle">
            <h2 id="lifecycle-heading" className="mb-1 font-semibold text-red-800">
              {t('lifecycle')}
            </h2>
            <p className="mb-3 text-sm text-slate-600">{app.disabledAt ? t('offDescription') : t('onDescription')}</p>
            <ActionForm
              action={setAppDisabledAction}
              org={org}
              submitLabel={app.disabledAt ? t('turnOn') : t('turnOff')}
              variant="secondary"
              inline
              testId="set-app-disabled"
            >
              <input type="hidden" name="appId" value={app.id} />
              <input type="hidden" name="disabled" value={app.disabledAt ? 'false' : 'true'} />
            </ActionForm>
            <h3 className="mb-1 mt-6 font-semibold text-red-800">{t('delete')}</h3>
            <p className="mb-3 text-sm text-slate-600">{t('deleteDescription')}</p>
            <ActionForm
              action={deleteAppAction}
              org={org}
              submitLabel={t('deleteSubmit')}
              variant="danger"
              confirm={t('deleteConfirm', { name: app.name })}
              confirmLabel={t('deleteConfirmLabel')}
              testId="delete-app"
            >
              <input type="hidden" name="appId" value={app.id} />
              <Field label={t('typeSlug', { slug: app.slug })} name="confirmSlug" autoComplete="off" required />
            </ActionForm>
          </section>
        ) : null}
      </div>
    </>
  );
}

/** What the app is, one line per language: the sign-in card shows the one of the page's language, else English's. */
async function AppDescriptions(props: { org: string; appId: string; descriptions: Record<string, string> }) {
  const t = await getT('console.app.descriptions');
  // Each language named in the reader's ("In Brazilian Portuguese", "Em inglês").
  const names = new Intl.DisplayNames([await requestLocale()], { type: 'language' });
  return (
    <section className="panel lg:col-span-2" aria-labelledby="descriptions-heading" data-testid="app-descriptions">
      <h2 id="descriptions-heading" className="mb-1 font-semibold">
        {t('title')}
      </h2>
      <p className="mb-3 text-sm text-slate-600">{t('intro')}</p>
      <ActionForm action={saveAppDescriptionsAction} org={props.org} submitLabel={t('save')} testId="save-app-descriptions" keepValues>
        <input type="hidden" name="appId" value={props.appId} />
        {supportedLocales().map((locale) => (
          <Field key={locale} label={t('inLanguage', { language: names.of(locale) ?? locale })} name={`description_${locale}`} defaultValue={props.descriptions[locale] ?? ''} maxLength={200} />
        ))}
      </ActionForm>
    </section>
  );
}
