// Settings → Identity → Domains: the organization's domains — which are verified (and how), which wait for their
// proof (what to publish, and why the last check did not find it) — and a form to add one. The other identity pages
// stand beside it (identity-frame.tsx). Owners only.
import type { Metadata } from 'next';
import { requireOrgAccess } from '../../../_lib/access';
import { DataTable, EmptyState, Section } from '../../../_components/page-header';
import { ActionForm, ConfirmedAction } from '../../../_components/action-form';
import { Field } from '../../../_components/fields';
import { When } from '@/app/_components/when';
import { checkFailureOf, listDomains, MAX_DOMAINS_PER_ORG, verificationInstructions, type OrgDomain } from '@/lib/identity/domains';
import { db } from '@/lib/runtime';
import { getT } from '@/app/_lib/i18n/server';
import { IdentityFrame, identityPageTitle } from './identity-frame';
import { addDomainAction, checkDomainAction, removeDomainAction } from './actions';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: await identityPageTitle('') };
}

const code = (chunks: React.ReactNode) => <code className="break-all">{chunks}</code>;

async function DomainState({ domain }: { domain: OrgDomain }) {
  const t = await getT('console.identity');
  if (domain.verifiedAt) {
    return (
      <>
        <span className="font-medium text-green-800">{t('domains.verified')}</span>
        <span className="block text-xs text-slate-600">
          {domain.verifiedBy ? t(`domains.verifiedBy.${domain.verifiedBy}`) : null} · <When value={domain.verifiedAt} />
        </span>
      </>
    );
  }
  const how = verificationInstructions(domain);
  const failure = checkFailureOf(domain);
  return (
    <>
      <span className="font-medium">{t('domains.pending')}</span>
      <span className="block text-xs text-slate-600">
        {domain.lastCheckedAt ? (
          <>
            {t('domains.lastChecked')} <When value={domain.lastCheckedAt} />
          </>
        ) : (
          t('domains.neverChecked')
        )}
      </span>
      {failure ? (
        <ul className="mt-1 text-xs text-red-700" data-testid="domain-failure">
          <li>{t(`domains.failure.dns.${failure.dns}`, { name: how.dnsName })}</li>
          <li>{t(`domains.failure.https.${failure.https}`, { url: how.fileUrl, status: failure.status ?? 0 })}</li>
        </ul>
      ) : null}
      <div className="mt-2 text-xs text-slate-700">
        <p>{t('domains.howTo')}</p>
        <ul className="ml-4 list-disc">
          <li>{t.rich('domains.dnsStep', { code, name: how.dnsName, value: how.dnsValue })}</li>
          <li>{t.rich('domains.fileStep', { code, url: how.fileUrl, value: how.fileContent })}</li>
        </ul>
      </div>
    </>
  );
}

export default async function IdentityDomainsPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  if (!access.can('identity.manage')) return <IdentityFrame access={access} />;
  const t = await getT('console.identity');
  const domains = await listDomains(db(), access.org.id);
  const org = access.org.slug;
  return (
    <IdentityFrame access={access}>
      <Section id="domains" title={t('domains.title')}>
        <p className="mb-4 max-w-3xl text-sm text-slate-600">{t('domains.intro')}</p>
        {domains.length === 0 ? (
          <EmptyState title={t('domains.empty')} />
        ) : (
          <DataTable testId="domains" columns={[t('domains.columns.domain'), t('domains.columns.state'), t('domains.columns.actions')]}>
            {domains.map((domain) => (
              <tr key={domain.id} data-domain={domain.domain} data-state={domain.verifiedAt ? 'verified' : 'pending'}>
                <td className="break-all font-medium">{domain.domain}</td>
                <td className="text-sm">
                  <DomainState domain={domain} />
                </td>
                <td>
                  <div className="flex flex-wrap gap-2">
                    {domain.verifiedAt ? null : (
                      <ActionForm action={checkDomainAction} org={org} submitLabel={t('domains.check')} variant="secondary" inline>
                        <input type="hidden" name="domainId" value={domain.id} />
                      </ActionForm>
                    )}
                    <ConfirmedAction
                      action={removeDomainAction}
                      org={org}
                      label={t('domains.remove')}
                      confirm={t('domains.removeConfirm', { domain: domain.domain })}
                      confirmLabel={t('domains.removeConfirmLabel')}
                      fields={{ domainId: domain.id }}
                    />
                  </div>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
        <h3 className="mb-2 mt-6 font-semibold">{t('domains.add.title')}</h3>
        {domains.length >= MAX_DOMAINS_PER_ORG ? (
          <p className="text-sm text-slate-600">{t('domains.add.full', { max: MAX_DOMAINS_PER_ORG })}</p>
        ) : (
          <ActionForm action={addDomainAction} org={org} submitLabel={t('domains.add.submit')} testId="add-domain">
            <Field label={t('domains.add.domain')} name="domain" required maxLength={253} placeholder="example.com" hint={t('domains.add.hint')} autoComplete="off" />
          </ActionForm>
        )}
      </Section>
    </IdentityFrame>
  );
}
