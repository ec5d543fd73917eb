// A member's or an agent's page: for every app of the organization, what they may do there and why.
import type { ReactNode } from 'react';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { explainPermissions } from '@/lib/organizations/effective-permissions';
import { listGrantableApps } from '@/lib/clients/apps';
import { listPermissionCatalog } from '@/lib/clients/permission-catalog';
import { getT } from '@/app/_lib/i18n/server';
import { db } from '@/lib/runtime';
import { visibleText } from '@/lib/util/visible-text';
import { PermissionExplanationList } from '../_components/permission-explanation';
import { EmptyState, PageHeader, Section } from '../_components/page-header';
import { requireOrgAccess } from './access';

/** `title`: the subject's name when the caller knows it (an organization with no app yet explains nothing to name it by). */
export async function SubjectPermissionsPage(props: { orgSlug: string; subject: string; back: { href: string; label: string }; title?: string; children?: ReactNode }) {
  const access = await requireOrgAccess(props.orgSlug);
  if (!access.can('members.read')) notFound();
  const apps = await listGrantableApps(db(), access.org.id);
  const explained = await Promise.all(
    apps.map(async (listing) => {
      const [catalog, explanation] = await Promise.all([listPermissionCatalog(db(), listing.app.id), explainPermissions(db(), { orgId: access.org.id, appId: listing.app.id, subject: props.subject })]);
      return { app: listing.app, gateway: listing.gateway, catalog, explanation };
    }),
  );
  const subject = explained.find((entry) => entry.explanation)?.explanation?.subject;
  if (apps.length > 0 && !subject) notFound();
  const org = access.org.slug;
  const t = await getT('console.subjectPermissions');
  return (
    <>
      <p className="mb-4 text-sm">
        <Link href={props.back.href}>← {props.back.label}</Link>
      </p>
      <PageHeader
        title={subject ? visibleText(subject.label) : props.title ? visibleText(props.title) : t('title')}
        description={subject?.kind === 'agent' ? t('agentDescription') : t('personDescription')}
      />
      {props.children}
      {apps.length === 0 ? <EmptyState title={t('noApps')} /> : null}
      {explained.map(({ app, gateway, catalog, explanation }) => (
        <Section key={app.id} id={`app-${app.id}`} title={app.name}>
          <div data-testid={`permissions-${app.slug}`}>
            {explanation?.subject.kind === 'agent' ? (
              <p className="mb-2 text-sm text-slate-600">{explanation.subject.mode === 'delegated' ? t('delegated') : t('own')}</p>
            ) : null}
            <PermissionExplanationList permissions={explanation?.permissions ?? []} emptyText={t('holdsNothing')} catalog={catalog} />
            <p className="mt-2 text-xs">
              {/* A gateway server's catalog is its tools' permissions, on the server's page. */}
              <Link href={gateway ? `/console/${org}/servers/${gateway}` : `/console/${org}/apps/${app.id}/permissions`}>{t('catalogLink')}</Link>
            </p>
          </div>
        </Section>
      ))}
    </>
  );
}
