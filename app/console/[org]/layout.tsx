// The console shell: organization switcher, navigation by permission, the signed-in person.
import Link from 'next/link';
import type { ReactNode } from 'react';
import { membershipsForSwitcher, requireOrgAccess } from '../_lib/access';
import { NavLink } from '../_components/nav-link';
import { runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

export default async function OrgLayout(props: { children: ReactNode; params: Promise<{ org: string }> }) {
  const { org: slug } = await props.params;
  const access = await requireOrgAccess(slug);
  const memberships = await membershipsForSwitcher(access.user);
  const base = `/console/${access.org.slug}`;
  const nav = [
    { href: `${base}/apps`, label: 'Apps', show: access.can('apps.read') },
    { href: `${base}/clients`, label: 'Clients', show: access.can('clients.manage') },
    { href: `${base}/agents`, label: 'Agents', show: access.can('agents.manage') },
    { href: `${base}/members`, label: 'Members', show: access.can('members.read') },
    { href: `${base}/teams`, label: 'Teams', show: access.can('teams.manage') },
    { href: `${base}/settings`, label: 'Settings', show: access.can('branding.manage') },
    { href: `${base}/approvals`, label: 'Approvals', show: access.can('audit.read') },
    { href: `${base}/audit`, label: 'Audit log', show: access.can('audit.read') },
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
              {access.org.name} <span className="text-slate-500">({access.role})</span>
            </summary>
            <ul className="absolute z-10 mt-1 min-w-56 rounded-md border border-slate-200 bg-white p-1 shadow-lg">
              {memberships.map((membership) => (
                <li key={membership.orgId}>
                  <Link className="block rounded px-3 py-2 text-sm no-underline hover:bg-slate-100" href={`/console/${membership.slug}/apps`}>
                    {membership.name} <span className="text-slate-500">· {membership.role}</span>
                  </Link>
                </li>
              ))}
              {runtime().env.PORTICO_ORG_CREATION === 'anyone' ? (
                <li className="border-t border-slate-200">
                  <Link className="block rounded px-3 py-2 text-sm no-underline hover:bg-slate-100" href="/console/orgs/new">
                    + New organization
                  </Link>
                </li>
              ) : null}
            </ul>
          </details>
          <nav aria-label="Organization" className="hidden flex-wrap gap-1 lg:flex">
            {nav.map((item) => (
              <NavLink key={item.href} href={item.href}>
                {item.label}
              </NavLink>
            ))}
          </nav>
          {/* Narrow screens: the same links behind one menu button. */}
          <details className="relative lg:hidden" data-testid="nav-menu">
            <summary className="cursor-pointer rounded-md border border-slate-300 px-3 py-1 text-sm">Menu</summary>
            <nav aria-label="Organization menu" className="absolute z-10 mt-1 grid min-w-48 gap-1 rounded-md border border-slate-200 bg-white p-2 shadow-lg">
              {nav.map((item) => (
                <NavLink key={item.href} href={item.href}>
                  {item.label}
                </NavLink>
              ))}
            </nav>
          </details>
          <div className="ml-auto flex items-center gap-3 text-sm">
            <Link href="/console/account" className="block max-w-48 truncate no-underline" title={access.user.email}>
              {access.user.email}
            </Link>
            <form method="post" action="/console/session/end">
              <button className="btn btn-secondary" type="submit">
                Sign out
              </button>
            </form>
          </div>
        </div>
      </header>
      <main className="mx-auto max-w-6xl px-4 py-6">{props.children}</main>
    </div>
  );
}
