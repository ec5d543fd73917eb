'use client';
// The app's sections as tabs: one page each (links, so each has its own address and the back button works), the
// current one marked for assistive technology with aria-current — the WAI-ARIA pattern for navigation that looks
// like tabs (role="tablist" is for panels switched in place).
import Link from 'next/link';
import { usePathname } from 'next/navigation';

export function AppTabs({ base, tabs, label }: { base: string; tabs: { segment: string; label: string }[]; label: string }) {
  const pathname = usePathname();
  return (
    <nav aria-label={label} className="mb-6 border-b border-slate-200">
      <ul className="-mb-px flex flex-wrap gap-1">
        {tabs.map((tab) => {
          const href = tab.segment ? `${base}/${tab.segment}` : base;
          const current = tab.segment ? pathname.startsWith(href) : pathname === base;
          return (
            <li key={tab.segment}>
              <Link
                href={href}
                aria-current={current ? 'page' : undefined}
                className={`inline-block border-b-2 px-3 py-2 text-sm no-underline ${current ? 'border-indigo-600 font-semibold text-indigo-700' : 'border-transparent text-slate-700 hover:border-slate-300 hover:text-slate-900'}`}
              >
                {tab.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
