import type { CSSProperties, ReactNode } from 'react';
import { getT } from '@/app/_lib/i18n/server';
import { ScrollPanel } from './scroll-panel';

export function PageHeader({ title, description, actions }: { title: string; description?: string; actions?: ReactNode }) {
  return (
    <div className="mb-6 flex flex-wrap items-start justify-between gap-4">
      <div>
        <h1 className="text-2xl font-semibold text-slate-900">{title}</h1>
        {description ? <p className="mt-1 max-w-2xl text-sm text-slate-600">{description}</p> : null}
      </div>
      {actions}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="panel text-center" data-testid="empty-state">
      <p className="font-semibold text-slate-800">{title}</p>
      {children ? <div className="mt-1 text-sm text-slate-600">{children}</div> : null}
    </div>
  );
}

export async function ReadOnlyNotice() {
  const t = await getT('console.page');
  return <p className="mb-4 text-sm text-slate-600">{t('readOnly')}</p>;
}

/** A titled panel of a page: the heading names the section for assistive technology. */
export function Section({ id, title, children, className }: { id: string; title: string; children: ReactNode; className?: string }) {
  return (
    <section id={id} className={`panel scroll-mt-4 ${className ?? 'mb-6'}`} aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className="mb-3 font-semibold">
        {title}
      </h2>
      {children}
    </section>
  );
}

/**
 * The column headings a table passes to its cells for narrow screens, where each row becomes a card and each cell
 * shows its heading (app/globals.css). `null` for a column that needs no label (actions).
 */
export function columnLabels(columns: readonly (string | null)[]): CSSProperties {
  return Object.fromEntries(columns.slice(0, 8).flatMap((label, index) => (label ? [[`--col-${index + 1}`, JSON.stringify(label)]] : []))) as CSSProperties;
}

/** A console table in its panel: the column headings (an Actions column for those who may act), then the rows. */
export async function DataTable({ testId, columns, actions, children }: { testId: string; columns: string[]; actions?: boolean; children: ReactNode }) {
  const t = await getT('console.page');
  return (
    <ScrollPanel className="p-0">
      <table className="table" data-testid={testId} style={columnLabels(columns)}>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
            {actions ? <th scope="col">{t('actions')}</th> : null}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </ScrollPanel>
  );
}
