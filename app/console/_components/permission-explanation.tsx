// "Why can X do Y": effective permissions, each with where it comes from (baseline, a team, a direct grant, or the
// person an agent acts for). The same list is what the subject's next token for the app carries, of what it asks for.
import type { EffectivePermission, PermissionSource } from '@/lib/organizations/effective-permissions';
import { BASELINE_SCOPE, describedIn, type CatalogPermission } from '@/lib/clients/permission-catalog';
import type { Translator } from '@/lib/i18n/catalogs';
import { getT, requestLocale } from '@/app/_lib/i18n/server';
import { visibleText } from '@/lib/util/visible-text';

/** Where a permission comes from, in words ("team Finance", "direct", "baseline", "delegated from ada@…"). */
function sourceText(t: Translator<'console.permissionExplanation'>, source: PermissionSource): string {
  switch (source.kind) {
    case 'baseline':
      return t('sources.baseline');
    case 'team':
      return t('sources.team', { team: source.team });
    case 'direct':
    case 'agent_direct':
      return t('sources.direct');
    case 'delegated':
      return t('sources.delegated', { from: source.from });
  }
}

/**
 * `catalog`: the app's catalog, when at hand, so that Portico's own descriptions (the baseline's, those made from the
 * tools) are in the person's language; an admin's stand as written.
 */
export async function PermissionExplanationList({ permissions, emptyText, catalog }: { permissions: EffectivePermission[]; emptyText: string; catalog?: readonly CatalogPermission[] }) {
  if (permissions.length === 0) return <p className="text-sm text-slate-600">{emptyText}</p>;
  const t = await getT('console.permissionExplanation');
  const locale = await requestLocale();
  const description = (permission: EffectivePermission) => {
    const entry = catalog?.find((candidate) => candidate.scope === permission.scope);
    if (entry) return describedIn(entry, locale);
    return permission.scope === BASELINE_SCOPE ? describedIn({ description: permission.description, baseline: true, tools: [], portico: true }, locale) : permission.description;
  };
  return (
    <ul className="grid gap-1 text-sm">
      {permissions.map((permission) => (
        <li key={permission.scope} data-scope={permission.scope}>
          <code>{permission.scope}</code> — {visibleText(description(permission))}{' '}
          <span className="text-slate-600">({permission.sources.map((source) => visibleText(sourceText(t, source))).join(', ')})</span>
        </li>
      ))}
    </ul>
  );
}
