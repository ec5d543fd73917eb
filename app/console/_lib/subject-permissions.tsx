// A member's or an agent's page: for every app of the organization, what they may do there and why.
import type { ReactNode } from 'react';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { explainPermissions } from '@/lib/accounts/effective-permissions';
import { listApps } from '@/lib/clients/apps';
import { db } from '@/lib/runtime';
import { visibleText } from '@/lib/util/visible-text';
import { PermissionExplanationList } from '../_components/permission-explanation';
import { EmptyState, PageHeader, Section } from '../_components/page-header';
import { requireOrgAccess } from './access';

export async function SubjectPermissionsPage(props: { orgSlug: string; subject: string; back: { href: string; label: string }; children?: ReactNode }) {
  const access = await requireOrgAccess(props.orgSlug);
  if (!access.can('members.read')) notFound();
  const apps = await listApps(db(), access.org.slug);
  const explained = await Promise.all(apps.map(async (listing) => ({ app: listing.app, explanation: await explainPermissions(db(), { orgId: access.org.id, appId: listing.app.id, subject: props.subject }) })));
  const subject = explained.find((entry) => entry.explanation)?.explanation?.subject;
  if (apps.length > 0 && !subject) notFound();
  const org = access.org.slug;
  return (
    <>
      <p className="mb-4 text-sm">
        <Link href={props.back.href}>← {props.back.label}</Link>
      </p>
      <PageHeader
        title={subject ? visibleText(subject.label) : 'Permissions'}
        description={
          subject?.kind === 'agent'
            ? 'What this agent may do in each app, and why: acting as itself it holds only its direct grants; acting for a person (a delegated connection), that person’s permissions, never more.'
            : 'What this person may do in each app, and why: the baseline every member holds, their teams’ grants and their direct grants. Tokens for an app carry these, of what they ask for, from the next refresh.'
        }
      />
      {props.children}
      {apps.length === 0 ? <EmptyState title="No apps yet" /> : null}
      {explained.map(({ app, explanation }) => (
        <Section key={app.id} id={`app-${app.id}`} title={app.name}>
          <div data-testid={`permissions-${app.slug}`}>
            {explanation?.subject.kind === 'agent' ? (
              <p className="mb-2 text-sm text-slate-600">{explanation.subject.mode === 'delegated' ? 'Connected in delegated mode: it acts for a person.' : 'Acts as itself here.'}</p>
            ) : null}
            <PermissionExplanationList permissions={explanation?.permissions ?? []} emptyText="Holds no permission on this app." />
            <p className="mt-2 text-xs">
              <Link href={`/console/${org}/apps/${app.id}/permissions`}>The app’s permission catalog</Link>
            </p>
          </div>
        </Section>
      ))}
    </>
  );
}
