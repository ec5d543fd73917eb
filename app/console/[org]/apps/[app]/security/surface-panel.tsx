// The app's declared surface and the outcome of the last verification. Four outcomes, each shown as itself:
// only "clean" is green, and an app that could not be asked is never shown as clean.
import type { SurfaceTool } from '@/app-kit/surface';
import type { SurfaceOutcome, SurfaceState } from '@/lib/clients/surface';
import { When } from '@/app/_components/when';


const OUTCOMES: Record<SurfaceOutcome, { label: string; className: string }> = {
  clean: { label: 'Clean', className: 'border-green-300 bg-green-50 text-green-900' },
  drift: { label: 'Drift', className: 'border-red-300 bg-red-50 text-red-900' },
  unsupported: { label: 'Unsupported', className: 'border-amber-300 bg-amber-50 text-amber-900' },
  unreachable: { label: 'Unreachable', className: 'border-slate-400 bg-slate-100 text-slate-900' },
};

function ToolList(props: { tools: SurfaceTool[]; testId: string }) {
  return (
    <ul className="text-sm" data-testid={props.testId}>
      {props.tools.map((tool) => (
        <li key={tool.name}>
          <code>{tool.name}</code> · {tool.riskLevel} · scopes {tool.requiredScopes.join(' ') || '(none)'}
        </li>
      ))}
    </ul>
  );
}

export function SurfacePanel({ state }: { state: SurfaceState }) {
  const check = state.lastCheck;
  return (
    <div className="mt-4 grid grid-cols-1 gap-4 lg:grid-cols-2">
      <div>
        <h3 className="mb-1 text-sm font-semibold">Declared</h3>
        {state.declaration ? (
          <>
            <p className="mb-2 text-xs text-slate-600" data-testid="surface-declared-at">
              {state.declaration.length} tool(s), declared <When value={state.declaredAt!} /> (kit contract {state.declaredContractVersion}).
            </p>
            <ToolList tools={state.declaration} testId="surface-declared" />
          </>
        ) : (
          <p className="text-sm text-slate-600" data-testid="surface-declared-at">
            The app has not declared its surface yet (the kit does it at start once it has PORTICO_CLIENT_ID and PORTICO_SURFACE_SECRET).
          </p>
        )}
      </div>
      <div>
        <h3 className="mb-1 text-sm font-semibold">Last verification</h3>
        {check ? (
          <div className={`rounded-md border p-3 text-sm ${OUTCOMES[check.outcome].className}`} data-testid="surface-outcome" data-outcome={check.outcome}>
            <p>
              <strong>{OUTCOMES[check.outcome].label}</strong> · <When value={state.lastCheckedAt!} />
            </p>
            <p className="mt-1">{check.detail}</p>
            {check.difference?.undeclared.length ? (
              <>
                <p className="mt-2 font-semibold">Exposed but not declared</p>
                <ToolList tools={check.difference.undeclared} testId="surface-undeclared" />
              </>
            ) : null}
            {check.difference?.missing.length ? (
              <>
                <p className="mt-2 font-semibold">Declared but not exposed</p>
                <ToolList tools={check.difference.missing} testId="surface-missing" />
              </>
            ) : null}
            {check.difference?.changed.length ? (
              <>
                <p className="mt-2 font-semibold">Changed</p>
                <ul className="text-sm" data-testid="surface-changed">
                  {check.difference.changed.map((change) => (
                    <li key={change.name}>
                      <code>{change.name}</code>: declared {change.declared.riskLevel} ({change.declared.requiredScopes.join(' ')}), exposes {change.exposed.riskLevel} (
                      {change.exposed.requiredScopes.join(' ')})
                    </li>
                  ))}
                </ul>
              </>
            ) : null}
          </div>
        ) : (
          <p className="text-sm text-slate-600" data-testid="surface-outcome" data-outcome="none">
            Never verified.
          </p>
        )}
      </div>
    </div>
  );
}
