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
 * An app's redirect URIs (or, with `removeAction`, its sign-out return addresses), with removal (confirmed) for those
 * who manage apps. A redirect URI on another origin than the app's publish address is marked: it is allowed (a
 * staging host, a native app's loopback), but also names the app's resource (<origin>/api/mcp), so it should be on
 * purpose.
 */
export function RedirectUriList(props: {
  org: string;
  appId: string;
  uris: readonly { id: string; uri: string; devOnly?: boolean }[];
  manage: boolean;
  testId: string;
  publishOrigin?: string;
  removeAction?: typeof removeRedirectUriAction;
  removalWarning?: (uri: string) => string;
}) {
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
              action={props.removeAction ?? removeRedirectUriAction}
              org={props.org}
              submitLabel="Remove"
              variant="secondary"
              inline
              confirm={props.removalWarning?.(uri.uri) ?? `Sign-ins that return to ${uri.uri} will be refused from now on.`}
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
