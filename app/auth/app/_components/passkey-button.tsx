'use client';
// "Sign in with a passkey" (no email: the passkey says who) and "Use a passkey" (the second step after a password):
// the options come from Portico (/auth/passkey/options, the challenge kept there and used once), the browser asks
// the person, and the answer is posted like any other sign-in form, to the surface's own sign-in route.
import { startAuthentication } from '@simplewebauthn/browser';
import { useRef, useState } from 'react';
import { useTranslations } from 'use-intl/react';

export function PasskeyButton(props: {
  /** Where the answer is posted: the surface's sign-in route (password step) or its second-factor route. */
  action: string;
  purpose: 'sign_in' | 'second_factor';
  label: string;
  /** More fields posted with the answer (`next` of the console, say). */
  hidden?: Record<string, string>;
  secondary?: boolean;
}) {
  const t = useTranslations('passkey');
  const form = useRef<HTMLFormElement>(null);
  const answer = useRef<HTMLInputElement>(null);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const field = props.purpose === 'sign_in' ? 'passkey' : 'code';

  async function ask() {
    setError(undefined);
    setBusy(true);
    try {
      const response = await fetch('/auth/passkey/options', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ purpose: props.purpose }) });
      const options = await response.json();
      if (!response.ok) {
        setError(options.error === 'slow_down' ? t('throttled') : t('unavailable'));
        return;
      }
      const credential = await startAuthentication({ optionsJSON: options });
      answer.current!.value = JSON.stringify(credential);
      form.current!.submit();
    } catch {
      setError(t('noAnswer'));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form ref={form} method="post" action={props.action} className="passkey-form" data-testid={`passkey-${props.purpose}`}>
      {props.purpose === 'second_factor' ? <input type="hidden" name="method" value="passkey" /> : null}
      {Object.entries(props.hidden ?? {}).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <input ref={answer} type="hidden" name={field} />
      <button type="button" className={props.secondary === false ? 'button' : 'button button-secondary'} onClick={() => void ask()} disabled={busy} aria-describedby={error ? `passkey-error-${props.purpose}` : undefined}>
        {busy ? t('waiting') : props.label}
      </button>
      {error ? (
        <p className="field-error" id={`passkey-error-${props.purpose}`} role="alert" data-testid="passkey-error">
          {error}
        </p>
      ) : null}
    </form>
  );
}
