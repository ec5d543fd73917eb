// Settings → Identity → People linked through the organization's connections: which Portico account each company
// identity provider's subject signs in to, how the link was made, when it was last used — and the owner ends one
// (the next sign-in through that connection must prove the account again).
import { ConfirmedAction } from '../../../_components/action-form';
import { EmptyState, Section } from '../../../_components/page-header';
import { When } from '@/app/_components/when';
import { getT } from '@/app/_lib/i18n/server';
import type { LinkedIdentity } from '@/lib/identity/links';
import { visibleText } from '@/lib/util/visible-text';
import { endMemberLinkAction } from './actions';

export async function LinkedPeopleSection({ org, links }: { org: string; links: LinkedIdentity[] }) {
  const t = await getT('console.identity');
  return (
    <Section id="linked-people" title={t('links.title')}>
      <p className="mb-4 max-w-3xl text-sm text-slate-600">{t('links.intro')}</p>
      {links.length === 0 ? (
        <EmptyState title={t('links.empty')} />
      ) : (
        <ul className="grid gap-3" data-testid="linked-people">
          {links.map((link) => (
            <li key={link.id} className="rounded-md border border-slate-200 p-3" data-link={link.email}>
              <dl className="grid gap-1 text-sm sm:grid-cols-[12rem_1fr]">
                <dt className="text-slate-600">{t('links.person')}</dt>
                <dd className="break-all">{link.email}</dd>
                <dt className="text-slate-600">{t('links.connection')}</dt>
                <dd className="break-all">{visibleText(link.connectionName)}</dd>
                <dt className="text-slate-600">{t('links.subject')}</dt>
                <dd className="break-all">{visibleText(link.subject)}</dd>
                <dt className="text-slate-600">{t('links.how')}</dt>
                <dd>{t(`links.linkedBy.${link.linkedBy}`)}</dd>
                <dt className="text-slate-600">{t('links.added')}</dt>
                <dd>
                  <When value={link.createdAt} relative={false} />
                </dd>
                <dt className="text-slate-600">{t('links.lastUsed')}</dt>
                <dd>{link.lastSignInAt ? <When value={link.lastSignInAt} /> : t('links.never')}</dd>
              </dl>
              <div className="mt-2">
                <ConfirmedAction
                  action={endMemberLinkAction}
                  org={org}
                  label={t('links.end')}
                  confirm={t('links.endConfirm', { email: link.email, connection: link.connectionName })}
                  confirmLabel={t('links.endConfirmLabel')}
                  fields={{ linkId: link.id }}
                />
              </div>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}
