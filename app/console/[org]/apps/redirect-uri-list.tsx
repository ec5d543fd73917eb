import { ActionForm } from '../../_components/action-form';
import { removeRedirectUriAction } from './actions';
import { getT } from '@/app/_lib/i18n/server';

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
export async function RedirectUriList(props: {
  org: string;
  appId: string;
  uris: readonly { id: string; uri: string; devOnly?: boolean }[];
  manage: boolean;
  testId: string;
  publishOrigin?: string;
  removeAction?: typeof removeRedirectUriAction;
  removalWarning?: (uri: string) => string;
}) {
  const t = await getT('console.apps.redirectUris');
  return (
    <ul className="mb-4 grid gap-2" data-testid={props.testId}>
      {props.uris.map((uri) => (
        <li key={uri.id} className="flex flex-wrap items-center justify-between gap-2 rounded-md border border-slate-200 p-2">
          <span>
            <code className="text-sm">{uri.uri}</code> {uri.devOnly ? <span className="badge">{t('devOnly')}</span> : null}
            {props.publishOrigin && !uri.devOnly && originOf(uri.uri) !== props.publishOrigin ? (
              <span className="badge badge-warning" data-testid="redirect-other-origin" title={t('otherOriginTitle', { origin: props.publishOrigin })}>
                {t('otherOrigin', { origin: props.publishOrigin })}
              </span>
            ) : null}
          </span>
          {props.manage ? (
            <ActionForm
              action={props.removeAction ?? removeRedirectUriAction}
              org={props.org}
              submitLabel={t('remove')}
              variant="secondary"
              inline
              confirm={props.removalWarning?.(uri.uri) ?? t('confirmRemove', { uri: uri.uri })}
              confirmLabel={t('confirmRemoveLabel')}
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
