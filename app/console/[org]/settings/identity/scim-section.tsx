// Settings → Identity → SCIM provisioning: the organization's SCIM base URL, its token (made or replaced here and
// shown once, revoked here) and when the directory last used it.
import { ActionForm, ConfirmedAction } from '../../../_components/action-form';
import { Section } from '../../../_components/page-header';
import { When } from '@/app/_components/when';
import { getT } from '@/app/_lib/i18n/server';
import { issueScimTokenAction, revokeScimTokenAction } from './actions';

export async function ScimSection({ org, issuer, token }: { org: string; issuer: string; token: { createdAt: Date; lastUsedAt: Date | null } | undefined }) {
  const t = await getT('console.identity');
  return (
    <Section id="scim" title={t('scim.title')}>
      <p className="mb-3 max-w-3xl text-sm text-slate-600">{t('scim.intro')}</p>
      <dl className="mb-3 grid gap-1 text-sm sm:grid-cols-[12rem_1fr]">
        <dt className="text-slate-600">{t('scim.baseUrl')}</dt>
        <dd className="break-all">
          <code data-testid="scim-base-url">{`${issuer}/scim/v2`}</code>
        </dd>
        <dt className="text-slate-600">{t('scim.token')}</dt>
        <dd data-testid="scim-token-state">
          {token ? (
            <>
              {t('scim.tokenMade')} <When value={token.createdAt} />
              {' · '}
              {token.lastUsedAt ? (
                <>
                  {t('scim.lastUsed')} <When value={token.lastUsedAt} />
                </>
              ) : (
                t('scim.neverUsed')
              )}
            </>
          ) : (
            t('scim.noToken')
          )}
        </dd>
      </dl>
      <div className="flex flex-wrap items-start gap-2">
        <ActionForm action={issueScimTokenAction} org={org} secretFileName="portico-scim-token.txt" submitLabel={token ? t('scim.replace') : t('scim.make')} confirm={token ? t('scim.replaceConfirm') : undefined} testId="scim-token">
          {null}
        </ActionForm>
        {token ? <ConfirmedAction action={revokeScimTokenAction} org={org} label={t('scim.revoke')} confirm={t('scim.revokeConfirm')} confirmLabel={t('scim.revokeConfirmLabel')} fields={{}} /> : null}
      </div>
    </Section>
  );
}
