// The security tab of an app: credential rotation with its overlap, revocation, dev environment and dev-only
// redirect URIs, and the recent audit entries of these actions. Owners and admins only, enforced on the server.
import type { Metadata } from 'next';
import { When } from '@/app/_components/when';
import { notFound } from 'next/navigation';
import { searchAuditEvents } from '@/lib/audit/events';
import { appClientRegistration, findOrgApp, listRedirectUris } from '@/lib/clients/apps';
import { devEnvironmentActive } from '@/lib/clients/dev-environment';
import { surfaceStateOf } from '@/lib/clients/surface';
import { credentialState, DEFAULT_OVERLAP_SECONDS } from '@/lib/clients/rotation';
import { db } from '@/lib/runtime';
import { requireOrgAccess } from '../../../../_lib/access';
import { ActionForm } from '../../../../_components/action-form';
import { Field } from '../../../../_components/fields';
import { RedirectUriList } from '../../redirect-uri-list';
import { AuditTable } from '../../../../_components/audit-table';
import {
  addDevRedirectUriAction,
  cancelRotationAction,
  completeRotationAction,
  issueSurfaceSecretAction,
  revokeAccessAction,
  setDevEnvironmentAction,
  setBackchannelApprovalAction,
  setNonceWithoutPkceAction,
  startRotationAction,
  verifySurfaceAction,
} from './actions';
import { SurfacePanel } from './surface-panel';
import { getT } from '@/app/_lib/i18n/server';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.app.security'))('pageTitle') };
}

export default async function SecurityPage(props: { params: Promise<{ org: string; app: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await props.params;
  const cancelled = (await props.searchParams).rotation === 'cancelled';
  const access = await requireOrgAccess(params.org);
  const listing = await findOrgApp(db(), access.org.id, params.app);
  if (!listing) notFound();
  const t = await getT('console.app.security');
  if (!access.can('apps.manage')) {
    return <p className="text-sm text-slate-600">{t('notAllowed')}</p>;
  }
  const { app, clientId } = listing;
  const org = access.org.slug;
  const [state, uris, devActive, recent, surface, registration] = await Promise.all([
    credentialState(db(), clientId),
    listRedirectUris(db(), clientId),
    devEnvironmentActive(db(), app.id),
    searchAuditEvents(db(), access.org.id, { appId: app.id }, { limit: 10 }),
    surfaceStateOf(db(), app.id),
    appClientRegistration(db(), clientId),
  ]);
  const rotating = Boolean(state?.rotationEndsAt);
  return (
    <>
      <p className="mb-4 max-w-2xl text-sm text-slate-600">{t('slack')}</p>
      {cancelled ? (
        <div className="alert alert-success mb-4" role="status" data-testid="rotation-cancelled">
          {t('rotation.cancelled')}
        </div>
      ) : null}
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <section className="panel" aria-labelledby="rotation-heading" data-testid="rotation">
          <h2 id="rotation-heading" className="mb-2 font-semibold">
            {t('rotation.title')}
          </h2>
          {state ? (
            <>
              <p className="mb-3 text-sm text-slate-600" data-testid="rotation-state">
                {rotating ? t.rich('rotation.inProgress', { until: () => <When value={state.rotationEndsAt!} /> }) : t('rotation.idle')}
              </p>
              {/* The three forms stay mounted whatever the state, so that what each shows (the new secret, shown once;
                  its outcome) survives the refresh that follows the step. */}
              <ActionForm action={startRotationAction} org={org} submitLabel={t('rotation.start')} inline secretFileName="portico-client-secret.env" testId="start-rotation" hideSubmit={rotating}>
                <input type="hidden" name="appId" value={app.id} />
                <input type="hidden" name="generation" value={state.generation} />
                {rotating ? null : <Field label={t('rotation.overlap')} name="overlapHours" type="number" min={1} max={720} defaultValue={DEFAULT_OVERLAP_SECONDS / 3600} />}
              </ActionForm>
              <div className="mt-3 grid gap-3">
                  <ActionForm action={completeRotationAction} org={org} submitLabel={t('rotation.complete')}
                    hideSubmit={!rotating}
                    confirm={t('rotation.confirmComplete')}
                    confirmLabel={t('rotation.confirmCompleteLabel')}
                    testId="complete-rotation"
                  >
                    <input type="hidden" name="appId" value={app.id} />
                    <input type="hidden" name="generation" value={state.generation} />
                  </ActionForm>
                  <ActionForm action={cancelRotationAction} org={org} submitLabel={t('rotation.cancel')}
                    hideSubmit={!rotating}
                    variant="secondary"
                    confirm={t('rotation.confirmCancel')}
                    confirmLabel={t('rotation.confirmCancelLabel')}
                    testId="cancel-rotation"
                  >
                    <input type="hidden" name="appId" value={app.id} />
                    <input type="hidden" name="generation" value={state.generation} />
                  </ActionForm>
              </div>
            </>
          ) : (
            <p className="text-sm text-slate-600">{t('rotation.noSecret')}</p>
          )}
        </section>
        <section className="panel" aria-labelledby="revoke-heading">
          <h2 id="revoke-heading" className="mb-2 font-semibold">
            {t('revoke.title')}
          </h2>
          <p className="mb-3 text-sm text-slate-600">{t('revoke.description')}</p>
          <ActionForm
            action={revokeAccessAction}
            org={org}
            submitLabel={t('revoke.submit')}
            variant="danger"
            confirm={t('revoke.confirm', { name: app.name })}
            confirmLabel={t('revoke.confirmLabel')}
            testId="revoke-access"
          >
            <input type="hidden" name="appId" value={app.id} />
          </ActionForm>
        </section>
        <section className="panel" aria-labelledby="dev-heading" data-testid="dev-environment">
          <h2 id="dev-heading" className="mb-2 font-semibold">
            {t('dev.title')}
          </h2>
          <p className="mb-3 text-sm text-slate-600" data-testid="dev-state">
            {devActive ? t.rich('dev.on', { until: () => <When value={app.devEnvironmentUntil!} /> }) : t('dev.off')}
          </p>
          <ActionForm action={setDevEnvironmentAction} org={org} submitLabel={devActive ? t('dev.change') : t('dev.turnOn')} inline testId="dev-on">
            <input type="hidden" name="appId" value={app.id} />
            <Field label={t('dev.hours')} name="hours" type="number" min={1} max={720} defaultValue={8} />
          </ActionForm>
          <div className="mt-3">
            <ActionForm action={setDevEnvironmentAction} org={org} submitLabel={t('dev.turnOff')} variant="secondary" hideSubmit={!devActive} testId="dev-off">
              <input type="hidden" name="appId" value={app.id} />
              <input type="hidden" name="hours" value="0" />
            </ActionForm>
          </div>
        </section>
        {/* Both apply to a confidential client only: a single-page or native app has no backend secret to ask with. */}
        {registration.profile === 'web' ? (
          <>
        <section className="panel" aria-labelledby="ciba-heading" data-testid="backchannel-approval">
          <h2 id="ciba-heading" className="mb-2 font-semibold">
            {t('ciba.title')}
          </h2>
          <p className="mb-2 text-sm text-slate-600">{t('ciba.explain')}</p>
          <p className="mb-3 text-sm text-slate-600" data-testid="ciba-state">
            {app.cibaEnabled ? t('ciba.on') : t('ciba.off')}
          </p>
          <ActionForm action={setBackchannelApprovalAction} org={org} submitLabel={app.cibaEnabled ? t('ciba.turnOff') : t('ciba.turnOn')} variant={app.cibaEnabled ? 'secondary' : undefined} testId="ciba-toggle">
            <input type="hidden" name="appId" value={app.id} />
            <input type="hidden" name="enabled" value={app.cibaEnabled ? 'off' : 'on'} />
          </ActionForm>
        </section>
        <section className="panel" aria-labelledby="pkce-heading" data-testid="nonce-without-pkce">
          <h2 id="pkce-heading" className="mb-2 font-semibold">
            {t('pkce.title')}
          </h2>
          <p className="mb-2 text-sm text-slate-600">{t('pkce.explain')}</p>
          <p className="mb-3 text-sm text-slate-600" data-testid="nonce-without-pkce-state">
            {registration.nonceWithoutPkce ? t('pkce.on') : t('pkce.off')}
          </p>
          <ActionForm action={setNonceWithoutPkceAction} org={org} submitLabel={registration.nonceWithoutPkce ? t('pkce.turnOff') : t('pkce.turnOn')} variant={registration.nonceWithoutPkce ? undefined : 'secondary'} testId="nonce-without-pkce-toggle">
            <input type="hidden" name="appId" value={app.id} />
            <input type="hidden" name="allowed" value={registration.nonceWithoutPkce ? 'off' : 'on'} />
          </ActionForm>
        </section>
          </>
        ) : null}
        <section className="panel" aria-labelledby="uris-heading">
          <h2 id="uris-heading" className="mb-2 font-semibold">
            {t('uris.title')}
          </h2>
          <RedirectUriList org={org} appId={app.id} uris={uris} manage testId="security-redirect-uris" />
          <ActionForm action={addDevRedirectUriAction} org={org} submitLabel={t('uris.add')} inline testId="add-dev-uri">
            <input type="hidden" name="appId" value={app.id} />
            <Field label={t('uris.field')} name="redirectUri" required placeholder="http://localhost:5173/callback" />
          </ActionForm>
        </section>
        <section className="panel lg:col-span-2" aria-labelledby="surface-heading" data-testid="surface">
          <h2 id="surface-heading" className="mb-2 font-semibold">
            {t('surface.title')}
          </h2>
          <p className="mb-3 text-sm text-slate-600">{t('surface.description')}</p>
          <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
            <div>
              <p className="mb-2 text-sm" data-testid="surface-secret-state">
                {surface.hasSecret ? t.rich('surface.secretCreated', { when: () => <When value={surface.secretCreatedAt!} /> }) : t('surface.noSecret')}
              </p>
              {/* Stays mounted whatever the state, so the secret shown once survives the refresh after the action. */}
              <ActionForm
                action={issueSurfaceSecretAction}
                org={org}
                submitLabel={surface.hasSecret ? t('surface.replace') : t('surface.create')}
                variant={surface.hasSecret ? 'secondary' : 'primary'}
                confirm={surface.hasSecret ? t('surface.confirmReplace') : undefined}
                confirmLabel={t('surface.confirmReplaceLabel')}
                testId="surface-secret"
                secretFileName="portico-surface-secret.env"
              >
                <input type="hidden" name="appId" value={app.id} />
              </ActionForm>
            </div>
            <div>
              <ActionForm action={verifySurfaceAction} org={org} submitLabel={t('surface.verify')} testId="verify-surface">
                <input type="hidden" name="appId" value={app.id} />
              </ActionForm>
            </div>
          </div>
          <SurfacePanel state={surface} />
        </section>
        <section className="panel lg:col-span-2" aria-labelledby="recent-heading">
          <h2 id="recent-heading" className="mb-2 font-semibold">
            {t('recent.title')}
          </h2>
          {recent.events.length === 0 ? (
            <p className="text-sm text-slate-600" data-testid="security-audit">
              {t('recent.none')}
            </p>
          ) : (
            <AuditTable events={recent.events} testId="security-audit" showSubject={false} detailBase={`/console/${access.org.slug}/audit`} />
          )}
        </section>
      </div>
    </>
  );
}
