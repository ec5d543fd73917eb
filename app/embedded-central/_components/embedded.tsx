'use client';
// The embedded central's client side. It runs inside an MCP host's view, possibly in the minimal sandbox (scripts
// and same-origin, no forms, no popups): sign-in and sign-out are fetch calls on a click or Enter, never a native
// form submission. It tells the frame around it what happened (ready, signed in, decided, cookie refused) with
// messages that carry no secret, so the view can fall back to the link when something here cannot work.
import { useEffect, useState } from 'react';
import { useTranslations } from 'use-intl/react';
import { DecisionPanel } from '../../central/_components/decision-panel';

type FrameEvent = { event: 'ready'; signedIn: boolean } | { event: 'signed_in' } | { event: 'cookies_unavailable' } | { event: 'decided'; state: string };

function tellParent(message: FrameEvent & { requestId: string }) {
  if (window.parent !== window) window.parent.postMessage({ type: 'portico.embedded-central', ...message }, '*');
}

export function FrameReady({ requestId, signedIn }: { requestId: string; signedIn: boolean }) {
  useEffect(() => tellParent({ event: 'ready', signedIn, requestId }), [requestId, signedIn]);
  return null;
}

export function EmbeddedSignIn({ requestId }: { requestId: string }) {
  const t = useTranslations('embeddedCentral.signIn');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [state, setState] = useState<{ kind: 'idle' | 'working' } | { kind: 'error'; message: string }>({ kind: 'idle' });

  async function signIn() {
    if (state.kind === 'working') return;
    if (!email || !password) return setState({ kind: 'error', message: t('enterBoth') });
    setState({ kind: 'working' });
    try {
      const answer = await fetch('/embedded-central/api/session', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email, password }), cache: 'no-store' });
      const body = (await answer.json()) as { error_description?: string };
      if (!answer.ok) return setState({ kind: 'error', message: body.error_description ?? t('failed') });
      setPassword('');
      // The browser may refuse a cookie set inside another site's frame: check it was kept before going on.
      const check = await fetch('/embedded-central/api/session', { cache: 'no-store' });
      if (!check.ok) {
        tellParent({ event: 'cookies_unavailable', requestId });
        return setState({ kind: 'error', message: t('cookiesRefused') });
      }
      tellParent({ event: 'signed_in', requestId });
      window.location.reload();
    } catch {
      setState({ kind: 'error', message: t('noAnswer') });
    }
  }

  const onEnter = (event: React.KeyboardEvent) => {
    if (event.key === 'Enter') void signIn();
  };
  return (
    <div className="grid gap-3" data-testid="embedded-sign-in">
      <p className="text-sm">{t('intro')}</p>
      <div className="field">
        <label htmlFor="embedded-email">{t('email')}</label>
        <input id="embedded-email" type="email" autoComplete="username" value={email} onChange={(event) => setEmail(event.target.value)} onKeyDown={onEnter} />
      </div>
      <div className="field">
        <label htmlFor="embedded-password">{t('password')}</label>
        <input id="embedded-password" type="password" autoComplete="current-password" value={password} onChange={(event) => setPassword(event.target.value)} onKeyDown={onEnter} />
      </div>
      <button type="button" className="button" disabled={state.kind === 'working'} onClick={() => void signIn()}>
        {state.kind === 'working' ? t('signingIn') : t('signIn')}
      </button>
      {state.kind === 'error' ? (
        <p role="alert" className="alert alert-error" data-testid="sign-in-error">
          {state.message}
        </p>
      ) : null}
    </div>
  );
}

export function EmbeddedSignOut({ requestId }: { requestId: string }) {
  const t = useTranslations('embeddedCentral');
  return (
    <button
      type="button"
      className="btn btn-secondary"
      onClick={() => {
        void fetch('/embedded-central/api/session/end', { method: 'POST', cache: 'no-store' }).finally(() => {
          tellParent({ event: 'ready', signedIn: false, requestId });
          window.location.reload();
        });
      }}
    >
      {t('signOut')}
    </button>
  );
}

export function EmbeddedDecision(props: { requestId: string; fingerprint: string; stepUp: boolean; profile: string | null }) {
  return <DecisionPanel {...props} base="/embedded-central" onDecided={(state) => tellParent({ event: 'decided', state, requestId: props.requestId })} />;
}
