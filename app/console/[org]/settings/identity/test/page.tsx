// The result of testing a connection: what the company's identity provider said about the person who signed in
// there, mapped as a real sign-in would map it (address, name, groups → teams), and what that sign-in would do.
// Nothing was created or linked. Only the owner who ran the test, in the browser that ran it, sees it.
import type { Metadata } from 'next';
import { cookies } from 'next/headers';
import { requireOrgAccess } from '../../../../_lib/access';
import { PageHeader, Section } from '../../../../_components/page-header';
import { getT } from '@/app/_lib/i18n/server';
import { FEDERATION_COOKIE, connectionTestResultOf, federatedAmr } from '@/lib/identity/federation/core';
import { findConnection } from '@/lib/identity/connections';
import { db } from '@/lib/runtime';
import { connectionPath, identityPath } from '../identity-frame';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.identity'))('test.pageTitle') };
}

export default async function ConnectionTestPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  const t = await getT('console.identity');
  if (!access.can('identity.manage')) return <PageHeader title={t('pageTitle')} description={t('notAllowed')} />;
  const back = identityPath(access.org.slug, 'connections');
  const result = await connectionTestResultOf(db(), (await cookies()).get(FEDERATION_COOKIE)?.value, { userId: access.user.id, orgId: access.org.id });
  if (!result) {
    return (
      <>
        <PageHeader title={t('test.pageTitle')} description={t('test.none')} />
        <a className="btn btn-secondary" href={back}>
          {t('connections.page.back')}
        </a>
      </>
    );
  }
  const connection = await findConnection(db(), result.connectionId);
  const { assertion } = result;
  const rows: [string, string, string][] = [
    ['subject', t('test.subject'), `${assertion.issuer} · ${assertion.subject}`],
    ['email', t('test.email'), assertion.email ?? t('test.missing')],
    ['email-verified', t('test.emailVerified'), assertion.emailVerified ? t('test.yes') : t('test.no')],
    ['email-domain', t('test.emailAtDomain'), result.emailAtConnectionDomain ? t('test.yes') : t('test.no')],
    ['name', t('test.name'), assertion.name ?? t('test.missing')],
    ['groups', t('test.groups'), assertion.groups === undefined ? t('test.missing') : assertion.groups.join(', ') || '—'],
    ['teams', t('test.teams'), result.teams.join(', ') || '—'],
    ['amr', t('test.amr'), federatedAmr(assertion).join(' ')],
    ['account', t('test.account'), t(`test.accounts.${result.account}`)],
  ];
  return (
    <>
      <PageHeader title={t('test.pageTitle')} description={t('test.description', { name: connection?.name ?? '' })} />
      <Section id="test-result" title={t('test.resultTitle')}>
        <dl className="grid gap-1 text-sm sm:grid-cols-[14rem_1fr]" data-testid="connection-test-result">
          {rows.map(([key, label, value]) => (
            <div key={key} className="contents" data-claim={key}>
              <dt className="text-slate-600">{label}</dt>
              <dd className="break-all" data-value={value}>
                {value}
              </dd>
            </div>
          ))}
        </dl>
      </Section>
      <a className="btn btn-secondary" href={connection ? connectionPath(access.org.slug, connection.id) : back}>
        {t('test.back')}
      </a>
    </>
  );
}
