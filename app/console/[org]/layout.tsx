// The console shell: organization switcher, navigation by permission, the signed-in person.
import Link from 'next/link';
import type { ReactNode } from 'react';
import { membershipsForSwitcher, requireOrgAccess } from '../_lib/access';
import { NavLink } from '../_components/nav-link';
import { db, runtime } from '@/lib/runtime';
import { getT } from '@/app/_lib/i18n/server';
import { inboxCount } from '@/lib/notifications/inbox';

export const dynamic = 'force-dynamic';

export default async function OrgLayout(props: { children: ReactNode; params: Promise<{ org: string }> }) {
  const { org: slug } = await props.params;
  const access = await requireOrgAccess(slug);
  const [memberships, waiting] = await Promise.all([membershipsForSwitcher(access.user), inboxCount(db(), access.user)]);
  const base = `/console/${access.org.slug}`;
  const t = await getT('console');
  const nav = [
    { href: `${base}/apps`, label: t('layout.nav.apps'), show: access.can('apps.read') },
    { href: `${base}/servers`, label: t('layout.nav.servers'), show: access.can('apps.manage') },
    { href: `${base}/clients`, label: t('layout.nav.clients'), show: access.can('clients.manage') },
    { href: `${base}/agents`, label: t('layout.nav.agents'), show: access.can('agents.manage') },
    { href: `${base}/members`, label: t('layout.nav.members'), show: access.can('members.read') },
    { href: `${base}/teams`, label: t('layout.nav.teams'), show: access.can('teams.manage') },
    { href: `${base}/settings`, label: t('layout.nav.settings'), show: access.can('branding.manage') },
    { href: `${base}/approvals`, label: t('layout.nav.approvals'), show: access.can('audit.read') },
    { href: `${base}/audit`, label: t('layout.nav.audit'), show: access.can('audit.read') },
  ].filter((item) => item.show);

  return (
    <div className="min-h-screen bg-slate-50">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-3 px-4 py-3">
          <Link href="/console" className="font-semibold text-indigo-700 no-underline">
            Portico
          </Link>
          <details className="relative" data-testid="org-switcher">
            <summary className="cursor-pointer rounded-md border border-slate-300 px-3 py-1 text-sm">
              {access.org.name} <span className="text-slate-500">({t('role', { role: access.role })})</span>
            </summary>
            <ul className="absolute z-10 mt-1 min-w-56 rounded-md border border-slate-200 bg-white p-1 shadow-lg">
              {memberships.map((membership) => (
                <li key={membership.orgId}>
                  <Link className="block rounded px-3 py-2 text-sm no-underline hover:bg-slate-100" href={`/console/${membership.slug}/apps`}>
                    {membership.name} <span className="text-slate-500">· {t('role', { role: membership.role })}</span>
                  </Link>
                </li>
              ))}
              {runtime().env.PORTICO_ORG_CREATION === 'anyone' ? (
                <li className="border-t border-slate-200">
                  <Link className="block rounded px-3 py-2 text-sm no-underline hover:bg-slate-100" href="/console/orgs/new">
                    {t('layout.newOrganization')}
                  </Link>
                </li>
              ) : null}
            </ul>
          </details>
          <nav aria-label={t('layout.organization')} className="hidden flex-wrap gap-1 lg:flex">
            {nav.map((item) => (
              <NavLink key={item.href} href={item.href}>
                {item.label}
              </NavLink>
            ))}
          </nav>
          {/* Narrow screens: the same links behind one menu button. */}
          <details className="relative lg:hidden" data-testid="nav-menu">
            <summary className="cursor-pointer rounded-md border border-slate-300 px-3 py-1 text-sm">{t('layout.menu')}</summary>
            <nav aria-label={t('layout.organizationMenu')} className="absolute z-10 mt-1 grid min-w-48 gap-1 rounded-md border border-slate-200 bg-white p-2 shadow-lg">
              {nav.map((item) => (
                <NavLink key={item.href} href={item.href}>
                  {item.label}
                </NavLink>
              ))}
            </nav>
          </details>
          <div className="ml-auto flex items-center gap-3 text-sm">
            {/* The link's name is its visible text and then what the count means (WCAG 2.5.3, label in name). */}
            <Link href="/console/inbox" className="no-underline" data-testid="inbox-link">
              {t('layout.inbox')}{' '}
              {waiting > 0 ? <span className="ml-1 rounded-full bg-indigo-600 px-2 py-0.5 text-xs font-semibold text-white">{waiting}</span> : null}
              <span className="sr-only"> {t('layout.inboxWaiting', { count: waiting })}</span>
            </Link>
            <Link href="/console/account" className="block max-w-48 truncate no-underline" title={access.user.email}>
              {access.user.email}
            </Link>
            <form method="post" action="/console/session/end">
              <button className="btn btn-secondary" type="submit">
                {t('layout.signOut')}
              </button>
            </form>
          </div>
        </div>
      </header>
      <main className="mx-auto max-w-6xl px-4 py-6">{props.children}</main>
    </div>
  );
}
