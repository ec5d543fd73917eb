'use client';
// One decision at a time: a click freezes the controls, fetches a fresh nonce (60 s) for this request and its
// fingerprint, and posts the decision. The answer must name the request shown; anything else is an error and
// changes nothing on screen. Once decided (or refused for good), the controls do not come back.
import { startAuthentication } from '@simplewebauthn/browser';
import { useEffect, useState } from 'react';
import { useLocale, useTranslations } from 'use-intl/react';
import type { CentralRequestView } from '@/lib/approvals/central';
import { useRequestLabels, useSetRequestView } from './request-summary';

type Phase = { kind: 'idle' } | { kind: 'working' } | { kind: 'decided'; state: string; detail: string } | { kind: 'error'; message: string; final: boolean };

export function DecisionPanel(props: {
  requestId: string;
  fingerprint: string;
  stepUp: boolean;
  /** The operator's strongest factor, which the step-up asks for (the password when not given). */
  stepUpFactor?: 'passkey' | 'totp' | 'password';
  /** Until when the factor proven at this session's sign-in counts as the step-up (ISO 8601): nothing to type before then. */
  stepUpCoveredUntil?: string;
  profile: string | null;
  base?: '/central' | '/embedded-central';
  onDecided?: (state: string) => void;
}) {
  const t = useTranslations('central.decision');
  const locale = useLocale();
  const labels = useRequestLabels();
  const profile = labels.profile(props.profile);
  const base = props.base ?? '/central';
  const factor = props.stepUpFactor ?? 'password';
  const setRequestView = useSetRequestView();
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  // The factor proven at sign-in counts as this decision's step-up until then (the server decides; a refusal brings
  // the field back).
  const [coveredUntil, setCoveredUntil] = useState(props.stepUpCoveredUntil);
  const askStepUp = props.stepUp && !coveredUntil;
  // Until when, in UTC as the server renders it, then in the reader's own zone once in the browser (the same text on
  // both sides of hydration).
  const [untilText, setUntilText] = useState(() =>
    coveredUntil ? new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', timeZone: 'UTC', timeZoneName: 'short' }).format(new Date(coveredUntil)) : '',
  );
  useEffect(() => {
    if (coveredUntil) setUntilText(new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }).format(new Date(coveredUntil)));
  }, [coveredUntil, locale]);
  const [password, setPassword] = useState('');
  const [confirmed, setConfirmed] = useState(false);

  async function decide(decision: 'approve' | 'deny') {
    if (phase.kind === 'working' || phase.kind === 'decided') return;
    setPhase({ kind: 'working' });
    const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), cache: 'no-store' });
    try {
      const nonceAnswer = await post(`${base}/api/nonce`, { request_id: props.requestId });
      const proof = (await nonceAnswer.json()) as {
        request_id?: string;
        nonce?: string;
        fingerprint?: string;
        error_description?: string;
        step_up?: { factor: string; covered_until?: string; passkey_options?: Parameters<typeof startAuthentication>[0]['optionsJSON'] };
      };
      if (!nonceAnswer.ok || proof.request_id !== props.requestId || !proof.nonce) {
        setPhase({ kind: 'error', message: proof.error_description ?? t('couldNotPrepare'), final: nonceAnswer.status === 401 });
        return;
      }
      if (proof.fingerprint !== props.fingerprint) {
        setPhase({ kind: 'error', message: t('notOnScreen'), final: true });
        return;
      }
      // A passkey step-up: the browser asks the operator, for options bound to this very nonce.
      let passkey: string | undefined;
      if (decision === 'approve' && askStepUp && proof.step_up?.passkey_options) {
        try {
          passkey = JSON.stringify(await startAuthentication({ optionsJSON: proof.step_up.passkey_options }));
        } catch {
          setPhase({ kind: 'error', message: t('passkeyNoAnswer'), final: false });
          return;
        }
      }
      const stepUp = factor === 'passkey' ? { passkey } : factor === 'totp' ? { code: password } : { password };
      const answer = await post(`${base}/api/decisions`, {
        request_id: props.requestId,
        fingerprint: props.fingerprint,
        nonce: proof.nonce,
        decision,
        ...(decision === 'approve' && askStepUp ? stepUp : {}),
        ...(decision === 'approve' && !props.stepUp ? { confirmed } : {}),
      });
      const result = (await answer.json()) as { request_id?: string; state?: string; grant_expires_at?: string | null; request?: CentralRequestView; error?: string; error_description?: string };
      // A decision under a quorum may leave the request pending: this person's part is recorded, others decide next.
      if (answer.ok && (result.request_id !== props.requestId || (result.state !== 'approved' && result.state !== 'denied' && result.state !== 'pending'))) {
        setPhase({ kind: 'error', message: t('otherRequest'), final: true });
        return;
      }
      if (!answer.ok) {
        // The sign-in's window passed meanwhile: the step-up is asked for after all.
        if (result.error === 'step_up' && coveredUntil) setCoveredUntil(undefined);
        const final = answer.status === 401 || result.error === 'not_pending' || result.error === 'expired';
        setPhase({ kind: 'error', message: result.error_description ?? t('refused'), final });
        return;
      }
      setPassword('');
      if (result.request?.id === props.requestId) setRequestView?.(result.request);
      props.onDecided?.(result.state!);
      setPhase({
        kind: 'decided',
        state: result.state!,
        detail:
          result.state === 'pending'
            ? t('waitsForOthers')
            : result.state !== 'approved'
            ? t('nothingGranted')
            : result.grant_expires_at
              ? t('grantedUntil', { until: new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(result.grant_expires_at)) })
              : t('granted'),
      });
    } catch {
      // The answer was lost: the state must be read again before anything is retried.
      setPhase({ kind: 'error', message: t('noAnswer'), final: true });
    }
  }

  if (phase.kind === 'decided') {
    return (
      <div role="status" className="rounded-md border border-green-300 bg-green-50 p-3 text-green-900" data-testid="decision-result" data-state={phase.state}>
        <strong>{phase.state === 'approved' ? t('approvedResult') : phase.state === 'pending' ? t('recordedResult') : t('deniedResult')}</strong> {phase.detail}{' '}
        {props.onDecided ? null : (
          <a href={base} data-testid="back-to-requests">
            {t('backToRequests')}
          </a>
        )}
      </div>
    );
  }
  const locked = phase.kind === 'working' || (phase.kind === 'error' && phase.final);
  // Approve waits for what it needs: the box ticked, or the step-up typed (a passkey is asked for on the click).
  const approvable = props.stepUp ? !askStepUp || factor === 'passkey' || password.trim() !== '' : confirmed;
  return (
    <div className="grid gap-3" data-testid="decision-panel">
      {props.stepUp && coveredUntil ? (
        <p className="text-sm" data-testid="step-up-covered">
          {t('stepUpCovered', { factor, until: untilText })}
        </p>
      ) : props.stepUp && factor === 'passkey' ? (
        <p className="text-sm" data-testid="step-up-passkey">
          {t('stepUpPasskey', { profile })}
        </p>
      ) : askStepUp ? (
        <div className="field">
          <label htmlFor="step-up-password">{factor === 'totp' ? t('stepUpCode', { profile }) : t('stepUpPassword', { profile })}</label>
          <input
            id="step-up-password"
            type={factor === 'totp' ? 'text' : 'password'}
            inputMode={factor === 'totp' ? 'numeric' : undefined}
            autoComplete={factor === 'totp' ? 'one-time-code' : 'current-password'}
            value={password}
            disabled={locked}
            onChange={(event) => setPassword(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter' && password.trim() !== '') void decide('approve');
            }}
          />
        </div>
      ) : (
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={confirmed} disabled={locked} onChange={(event) => setConfirmed(event.target.checked)} />
          {t('confirmRead')}
        </label>
      )}
      <div className="flex gap-2">
        <button type="button" className="btn btn-primary" disabled={locked || !approvable} onClick={() => void decide('approve')}>
          {phase.kind === 'working' ? t('working') : t('approve')}
        </button>
        <button type="button" className="btn btn-danger" disabled={locked} onClick={() => void decide('deny')}>
          {t('deny')}
        </button>
      </div>
      {phase.kind === 'error' ? (
        <p role="alert" className="text-sm text-red-700" data-testid="decision-error">
          {phase.message}
        </p>
      ) : null}
    </div>
  );
}
