// The app's declared surface and the outcome of the last verification. Four outcomes, each shown as itself:
// only "clean" is green, and an app that could not be asked is never shown as clean.
import type { SurfaceTool } from '@/app-kit/surface';
import type { SurfaceOutcome, SurfaceState } from '@/lib/clients/surface';
import { When } from '@/app/_components/when';
import { textIn, type Translator } from '@/lib/i18n/catalogs';
import { getT, requestLocale } from '@/app/_lib/i18n/server';

const OUTCOME_CLASSES: Record<SurfaceOutcome, string> = {
  clean: 'border-green-300 bg-green-50 text-green-900',
  drift: 'border-red-300 bg-red-50 text-red-900',
  unsupported: 'border-amber-300 bg-amber-50 text-amber-900',
  unreachable: 'border-slate-400 bg-slate-100 text-slate-900',
};

function ToolList(props: { t: Translator<'console.app.surface'>; tools: SurfaceTool[]; testId: string }) {
  const { t } = props;
  return (
    <ul className="text-sm" data-testid={props.testId}>
      {props.tools.map((tool) => (
        <li key={tool.name}>
          <code>{tool.name}</code> · {tool.riskLevel} · {t('scopes', { scopes: tool.requiredScopes.join(' ') || t('noScopes') })}
        </li>
      ))}
    </ul>
  );
}

export async function SurfacePanel({ state }: { state: SurfaceState }) {
  const check = state.lastCheck;
  const t = await getT('console.app.surface');
  const locale = await requestLocale();
  return (
    <div className="mt-4 grid grid-cols-1 gap-4 lg:grid-cols-2">
      <div>
        <h3 className="mb-1 text-sm font-semibold">{t('declared')}</h3>
        {state.declaration ? (
          <>
            <p className="mb-2 text-xs text-slate-600" data-testid="surface-declared-at">
              {t.rich('declaredAt', { count: state.declaration.length, contract: state.declaredContractVersion ?? '', when: () => <When value={state.declaredAt!} /> })}
            </p>
            <ToolList t={t} tools={state.declaration} testId="surface-declared" />
          </>
        ) : (
          <p className="text-sm text-slate-600" data-testid="surface-declared-at">
            {t('notDeclared')}
          </p>
        )}
      </div>
      <div>
        <h3 className="mb-1 text-sm font-semibold">{t('lastVerification')}</h3>
        {check ? (
          <div className={`rounded-md border p-3 text-sm ${OUTCOME_CLASSES[check.outcome]}`} data-testid="surface-outcome" data-outcome={check.outcome}>
            <p>
              <strong>{t(`outcomes.${check.outcome}`)}</strong> · <When value={state.lastCheckedAt!} />
            </p>
            {/* Older records carry only the English sentence. */}
            <p className="mt-1">{check.text ? textIn(check.text, locale) : check.detail}</p>
            {check.difference?.undeclared.length ? (
              <>
                <p className="mt-2 font-semibold">{t('undeclared')}</p>
                <ToolList t={t} tools={check.difference.undeclared} testId="surface-undeclared" />
              </>
            ) : null}
            {check.difference?.missing.length ? (
              <>
                <p className="mt-2 font-semibold">{t('missing')}</p>
                <ToolList t={t} tools={check.difference.missing} testId="surface-missing" />
              </>
            ) : null}
            {check.difference?.changed.length ? (
              <>
                <p className="mt-2 font-semibold">{t('changed')}</p>
                <ul className="text-sm" data-testid="surface-changed">
                  {check.difference.changed.map((change) => (
                    <li key={change.name}>
                      <code>{change.name}</code>
                      {t('change', {
                        declaredRisk: change.declared.riskLevel,
                        declaredScopes: change.declared.requiredScopes.join(' '),
                        exposedRisk: change.exposed.riskLevel,
                        exposedScopes: change.exposed.requiredScopes.join(' '),
                      })}
                    </li>
                  ))}
                </ul>
              </>
            ) : null}
          </div>
        ) : (
          <p className="text-sm text-slate-600" data-testid="surface-outcome" data-outcome="none">
            {t('never')}
          </p>
        )}
      </div>
    </div>
  );
}
