// A panel whose table may be wider than the screen: it scrolls sideways inside itself, and since a region that
// scrolls must be reachable by keyboard (WCAG 2.1.1; axe's scrollable-region-focusable), it takes focus and is named.
import type { ReactNode } from 'react';
import { getT } from '@/app/_lib/i18n/server';

export async function ScrollPanel({ className, label, children }: { className?: string; label?: string; children: ReactNode }) {
  const t = await getT('console.page');
  return (
    <div className={`panel overflow-x-auto ${className ?? ''}`.trim()} tabIndex={0} role="region" aria-label={label ?? t('scrollableTable')}>
      {children}
    </div>
  );
}
