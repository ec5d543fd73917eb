// The security tab of an app: credential rotation with its overlap, revocation, dev environment and dev-only
// redirect URIs, and the recent audit entries of these actions. Owners and admins only, enforced on the server.
import type { Metadata } from 'next';
import { When } from '@/app/_components/when';
import { notFound } from 'next/navigation';
import { searchAuditEvents } from '@/lib/audit/events';
import { findOrgApp, listRedirectUris } from '@/lib/clients/apps';
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
  startRotationAction,
  verifySurfaceAction,
} from './actions';
import { SurfacePanel } from './surface-panel';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'App security' };

const SLACK = 'Neither rotation nor revocation reaches an access token already issued: it stays valid until it expires, at most 10 minutes.';

export default async function SecurityPage(props: { params: Promise<{ org: string; app: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await props.params;
  const cancelled = (await props.searchParams).rotation === 'cancelled';
  const access = await requireOrgAccess(params.org);
  const listing = await findOrgApp(db(), access.org.id, params.app);
  if (!listing) notFound();
  if (!access.can('apps.manage')) {
    return <p className="text-sm text-slate-600">Only the organization’s owners and admins can open an app’s security tab.</p>;
  }
  const { app, clientId } = listing;
  const org = access.org.slug;
  const [state, uris, devActive, recent, surface] = await Promise.all([
    credentialState(db(), clientId),
    listRedirectUris(db(), clientId),
    devEnvironmentActive(db(), app.id),
    searchAuditEvents(db(), access.org.id, { appId: app.id }, { limit: 10 }),
    surfaceStateOf(db(), app.id),
  ]);
  const rotating = Boolean(state?.rotationEndsAt);
  return (
    <>
      <p className="mb-4 max-w-2xl text-sm text-slate-600">{SLACK}</p>
      {cancelled ? (
        <div className="alert alert-success mb-4" role="status" data-testid="rotation-cancelled">
          Rotation cancelled: the new secret is discarded, the old one works as before.
        </div>
      ) : null}
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <section className="panel" aria-labelledby="rotation-heading" data-testid="rotation">
          <h2 id="rotation-heading" className="mb-2 font-semibold">
            Client secret
          </h2>
          {state ? (
            <>
              <p className="mb-3 text-sm text-slate-600" data-testid="rotation-state">
                {rotating ? (
                  <>
                    Rotation in progress: the old and the new secret both work until <When value={state.rotationEndsAt!} />.
                  </>
                ) : (
                  'One secret is active. Rotate it without downtime: both secrets work during an overlap window.'
                )}
              </p>
              {/* The three forms stay mounted whatever the state, so that what each shows (the new secret, shown once;
                  its outcome) survives the refresh that follows the step. */}
              <ActionForm action={startRotationAction} org={org} submitLabel="Start rotation" inline testId="start-rotation" hideSubmit={rotating}>
                <input type="hidden" name="appId" value={app.id} />
                <input type="hidden" name="generation" value={state.generation} />
                {rotating ? null : <Field label="Overlap (hours)" name="overlapHours" type="number" min={1} max={720} defaultValue={DEFAULT_OVERLAP_SECONDS / 3600} />}
              </ActionForm>
              <div className="mt-3 grid gap-3">
                  <ActionForm action={completeRotationAction} org={org} submitLabel="Complete rotation" hideSubmit={!rotating} confirm="The old secret stops working now. Every instance of the app must already use the new one." confirmLabel="Yes, complete" testId="complete-rotation">
                    <input type="hidden" name="appId" value={app.id} />
                    <input type="hidden" name="generation" value={state.generation} />
                  </ActionForm>
                  <ActionForm action={cancelRotationAction} org={org} submitLabel="Cancel rotation" hideSubmit={!rotating} variant="secondary" confirm="The new secret is discarded; the old one keeps working with no end." confirmLabel="Yes, cancel" testId="cancel-rotation">
                    <input type="hidden" name="appId" value={app.id} />
                    <input type="hidden" name="generation" value={state.generation} />
                  </ActionForm>
              </div>
            </>
          ) : (
            <p className="text-sm text-slate-600">This client has no secret.</p>
          )}
        </section>
        <section className="panel" aria-labelledby="revoke-heading">
          <h2 id="revoke-heading" className="mb-2 font-semibold">
            Revoke access
          </h2>
          <p className="mb-3 text-sm text-slate-600">
            Ends every session of this app: its grants and refresh tokens, and the authorization codes in flight. People sign in again. The secret is not changed (rotate it separately).
          </p>
          <ActionForm action={revokeAccessAction} org={org} submitLabel="Revoke all sessions" variant="danger" confirm={`Revoke every session of ${app.name}? ${SLACK}`} confirmLabel="Yes, revoke" testId="revoke-access">
            <input type="hidden" name="appId" value={app.id} />
          </ActionForm>
        </section>
        <section className="panel" aria-labelledby="dev-heading" data-testid="dev-environment">
          <h2 id="dev-heading" className="mb-2 font-semibold">
            Dev environment
          </h2>
          <p className="mb-3 text-sm text-slate-600" data-testid="dev-state">
            {devActive ? (
              <>
                On until <When value={app.devEnvironmentUntil!} />: dev-only redirect URIs are accepted.
              </>
            ) : (
              'Off: dev-only redirect URIs are refused.'
            )}
          </p>
          <ActionForm action={setDevEnvironmentAction} org={org} submitLabel={devActive ? 'Change' : 'Turn on'} inline testId="dev-on">
            <input type="hidden" name="appId" value={app.id} />
            <Field label="For (hours)" name="hours" type="number" min={1} max={720} defaultValue={8} />
          </ActionForm>
          <div className="mt-3">
            <ActionForm action={setDevEnvironmentAction} org={org} submitLabel="Turn off now" variant="secondary" hideSubmit={!devActive} testId="dev-off">
              <input type="hidden" name="appId" value={app.id} />
              <input type="hidden" name="hours" value="0" />
            </ActionForm>
          </div>
        </section>
        <section className="panel" aria-labelledby="uris-heading">
          <h2 id="uris-heading" className="mb-2 font-semibold">
            Redirect URIs
          </h2>
          <RedirectUriList org={org} appId={app.id} uris={uris} manage testId="security-redirect-uris" />
          <ActionForm action={addDevRedirectUriAction} org={org} submitLabel="Add dev-only URI" inline testId="add-dev-uri">
            <input type="hidden" name="appId" value={app.id} />
            <Field label="Dev-only redirect URI" name="redirectUri" required placeholder="http://localhost:5173/callback" />
          </ActionForm>
        </section>
        <section className="panel lg:col-span-2" aria-labelledby="surface-heading" data-testid="surface">
          <h2 id="surface-heading" className="mb-2 font-semibold">
            Surface
          </h2>
          <p className="mb-3 text-sm text-slate-600">
            What the app exposes over MCP: its tools, the scopes they need and their risk levels. The app declares it with its surface secret; verification asks the
            app&apos;s introspection route (signed with the same secret) for the real, unfiltered list and compares. It runs only when you start it.
          </p>
          <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
            <div>
              <p className="mb-2 text-sm" data-testid="surface-secret-state">
                {surface.hasSecret ? (
                  <>
                    Surface secret created <When value={surface.secretCreatedAt!} />.
                  </>
                ) : (
                  'No surface secret yet: the app can neither declare its surface nor be verified.'
                )}
              </p>
              {/* Stays mounted whatever the state, so the secret shown once survives the refresh after the action. */}
              <ActionForm
                action={issueSurfaceSecretAction}
                org={org}
                submitLabel={surface.hasSecret ? 'Replace surface secret' : 'Create surface secret'}
                variant={surface.hasSecret ? 'secondary' : 'primary'}
                confirm={surface.hasSecret ? 'The current secret stops working at once: the app can no longer declare its surface or answer verification until it has the new one.' : undefined}
                confirmLabel="Yes, replace"
                testId="surface-secret"
              >
                <input type="hidden" name="appId" value={app.id} />
              </ActionForm>
            </div>
            <div>
              <ActionForm action={verifySurfaceAction} org={org} submitLabel="Verify surface now" testId="verify-surface">
                <input type="hidden" name="appId" value={app.id} />
              </ActionForm>
            </div>
          </div>
          <SurfacePanel state={surface} />
        </section>
        <section className="panel lg:col-span-2" aria-labelledby="recent-heading">
          <h2 id="recent-heading" className="mb-2 font-semibold">
            Recent activity
          </h2>
          {recent.events.length === 0 ? (
            <p className="text-sm text-slate-600" data-testid="security-audit">
              No rotation, revocation or dev-environment change yet.
            </p>
          ) : (
            <AuditTable events={recent.events} testId="security-audit" showSubject={false} detailBase={`/console/${access.org.slug}/audit`} />
          )}
        </section>
      </div>
    </>
  );
}
