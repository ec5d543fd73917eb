// "Why can X do Y": effective permissions, each with where it comes from (baseline, a team, a direct grant, or the
// person an agent acts for). The same list is what the subject's next token for the app carries, of what it asks for.
import { describeSource, type EffectivePermission } from '@/lib/accounts/effective-permissions';
import { visibleText } from '@/lib/util/visible-text';

export function PermissionExplanationList({ permissions, emptyText }: { permissions: EffectivePermission[]; emptyText: string }) {
  if (permissions.length === 0) return <p className="text-sm text-slate-600">{emptyText}</p>;
  return (
    <ul className="grid gap-1 text-sm">
      {permissions.map((permission) => (
        <li key={permission.scope} data-scope={permission.scope}>
          <code>{permission.scope}</code> — {visibleText(permission.description)}{' '}
          <span className="text-slate-600">({permission.sources.map(describeSource).map(visibleText).join(', ')})</span>
        </li>
      ))}
    </ul>
  );
}
