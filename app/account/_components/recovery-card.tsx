import { getT } from '@/app/_lib/i18n/server';

// The "Forgot password?" card: an email field, then — whatever the email — the same "check your mail" answer.
export async function RecoveryCard(props: { action: string; sent: boolean; invalidEmail: boolean; back: { href: string; label: string } }) {
  const t = await getT('recovery');
  if (props.sent) {
    return (
      <>
        <h1>{t('sentTitle')}</h1>
        <div className="alert alert-success" role="status" data-testid="recovery-sent">
          {t('sent')}
        </div>
        <p>{t('noMail')}</p>
        <p>
          <a href={props.back.href}>{props.back.label}</a>
        </p>
      </>
    );
  }
  return (
    <>
      <h1>{t('title')}</h1>
      <p>{t('intro')}</p>
      <form method="post" action={props.action} data-testid="recovery-form">
        <div className="field">
          <label htmlFor="email">{t('email')}</label>
          <input
            id="email"
            name="email"
            type="email"
            autoComplete="username"
            required
            maxLength={320}
            autoFocus
            aria-invalid={props.invalidEmail ? true : undefined}
            aria-describedby={props.invalidEmail ? 'email-error' : undefined}
          />
          {props.invalidEmail ? (
            <p className="field-error" id="email-error">
              {t('invalidEmail')}
            </p>
          ) : null}
        </div>
        <button className="button" type="submit">
          {t('submit')}
        </button>
      </form>
      <div className="form-links">
        <a href={props.back.href}>{props.back.label}</a>
      </div>
    </>
  );
}
