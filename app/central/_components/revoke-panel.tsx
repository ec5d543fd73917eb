'use client';
// Revoking a grant from the central: a second click confirms; the answer must name the grant shown.
import { useState } from 'react';
import { useTranslations } from 'use-intl/react';

export function RevokePanel({ grantId }: { grantId: string }) {
  const t = useTranslations('central.revoke');
  const [phase, setPhase] = useState<'idle' | 'armed' | 'working' | 'revoked' | { error: string }>('idle');
  async function revoke() {
    setPhase('working');
    try {
      const response = await fetch('/central/api/revocations', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ grant_id: grantId }) });
      const body = (await response.json()) as { grant_id?: string; error_description?: string };
      setPhase(response.ok && body.grant_id === grantId ? 'revoked' : { error: body.error_description ?? t('notRevoked') });
    } catch {
      setPhase({ error: t('noAnswer') });
    }
  }
  if (phase === 'revoked') {
    return (
      <p role="status" className="text-sm text-green-800" data-testid="revoke-result">
        {t('revoked')}
      </p>
    );
  }
  return (
    <div className="grid gap-2" data-testid="revoke-panel">
      <p className="text-sm">{t('inForce')}</p>
      {phase === 'armed' ? (
        <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-900">
          <p className="mb-2">{t('confirm')}</p>
          <div className="flex gap-2">
            <button type="button" className="btn btn-danger" onClick={() => void revoke()}>
              {t('yesRevoke')}
            </button>
            <button type="button" className="btn btn-secondary" onClick={() => setPhase('idle')}>
              {t('cancel')}
            </button>
          </div>
        </div>
      ) : (
        <div>
          <button type="button" className="btn btn-danger" disabled={phase === 'working'} onClick={() => setPhase('armed')}>
            {t('revokeGrant')}
          </button>
        </div>
      )}
      {typeof phase === 'object' ? (
        <p role="alert" className="text-sm text-red-700">
          {phase.error}
        </p>
      ) : null}
    </div>
  );
}
