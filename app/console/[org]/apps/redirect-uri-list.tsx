import type { listRedirectUris } from '@/lib/clients/apps';
import { ActionForm } from '../../_components/action-form';
import { removeRedirectUriAction } from './actions';

function originOf(uri: string): string | undefined {
  try {
    return new URL(uri).origin;
  } catch {
    return undefined;
  }
}

/**
 * An app's redirect URIs, with removal (confirmed) for those who manage apps. One on another origin than the app's
 * publish address is marked: it is allowed (a staging host, a native app's loopback), but also names the app's
 * resource (<origin>/api/mcp), so it should be on purpose.
 */
export function RedirectUriList(props: { org: string; appId: string; uris: Awaited<ReturnType<typeof listRedirectUris>>; manage: boolean; testId: string; publishOrigin?: string }) {
  return (
    <ul className="mb-4 grid gap-2" data-testid={props.testId}>
      {props.uris.map((uri) => (
        <li key={uri.id} className="flex flex-wrap items-center justify-between gap-2 rounded-md border border-slate-200 p-2">
          <span>
            <code className="text-sm">{uri.uri}</code> {uri.devOnly ? <span className="badge">dev only</span> : null}
            {props.publishOrigin && !uri.devOnly && originOf(uri.uri) !== props.publishOrigin ? (
              <span className="badge badge-warning" data-testid="redirect-other-origin" title={`The app is published at ${props.publishOrigin}`}>
                not the publish address ({props.publishOrigin}): check it is yours
              </span>
            ) : null}
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
