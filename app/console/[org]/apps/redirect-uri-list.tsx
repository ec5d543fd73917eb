import type { listRedirectUris } from '@/lib/clients/apps';
import { ActionForm } from '../../_components/action-form';
import { removeRedirectUriAction } from './actions';

/** An app's redirect URIs, with removal (confirmed) for those who manage apps. */
export function RedirectUriList(props: { org: string; appId: string; uris: Awaited<ReturnType<typeof listRedirectUris>>; manage: boolean; testId: string }) {
  return (
    <ul className="mb-4 grid gap-2" data-testid={props.testId}>
      {props.uris.map((uri) => (
        <li key={uri.id} className="flex flex-wrap items-center justify-between gap-2 rounded-md border border-slate-200 p-2">
          <span>
            <code className="text-sm">{uri.uri}</code> {uri.devOnly ? <span className="badge">dev only</span> : null}
          </span>
          {props.manage ? (
            <ActionForm
              action={removeRedirectUriAction}
              org={props.org}
              submitLabel="Remove"
              variant="secondary"
              inline
              confirm={`Sign-ins that return to ${uri.uri} will be refused from now on.`}
              confirmLabel="Yes, remove it"
            >
              <input type="hidden" name="appId" value={props.appId} />
              <input type="hidden" name="uri" value={uri.uri} />
            </ActionForm>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
