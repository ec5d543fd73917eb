import type { CSSProperties, ReactNode } from 'react';
import { descriptionIn, type AppSignInContext } from '@/lib/clients/app-context';
import { readableOnWhite, readableTextOn } from '@/lib/util/contrast';
import { getT, requestLocale } from '@/app/_lib/i18n/server';
import { PasskeyButton } from './passkey-button';

/**
 * The screen around every sign-in card: the owning organization's whitelabel brand when it has one
 * (it takes the whole screen), otherwise Portico's own.
 */
export async function SignInFrame({ org, children }: { org?: AppSignInContext['org']; children: ReactNode }) {
  const t = await getT('frame');
  const brand = org?.brand ?? null;
  const style = {
    ...(brand?.backgroundColor ? { background: brand.backgroundColor } : {}),
    ...(brand?.primaryColor ? { '--color-primary': brand.primaryColor, '--color-primary-text': readableTextOn(brand.primaryColor), '--color-link': readableOnWhite(brand.primaryColor) } : {}),
  } as CSSProperties;
  return (
    <div className="center-screen" style={style} data-brand={brand ? 'organization' : 'portico'}>
      <div className="card">
        <div className="brand-bar">
          {brand?.logoUrl ? <img src={brand.logoUrl} alt="" /> : null}
          <span>{brand ? brand.displayName : 'Portico'}</span>
        </div>
        {children}
        {brand ? <p className="footnote">{t('securedBy')}</p> : null}
      </div>
    </div>
  );
}

/** The app's avatar, name and address, and its description in the page's language when its admins wrote one. */
export async function AppHeader({ app, address }: { app: AppSignInContext['app']; address?: string }) {
  const description = descriptionIn(app.descriptions, await requestLocale());
  return (
    <div className="app-header" data-testid="app-header">
      {app.avatarUrl ? (
        <img className="app-avatar" src={app.avatarUrl} alt="" />
      ) : (
        <span className="app-avatar" aria-hidden="true">
          {app.name.slice(0, 1).toUpperCase()}
        </span>
      )}
      <div>
        <div className="app-name">{app.name}</div>
        {address ? <div className="app-address">{address}</div> : null}
        {description ? (
          <div className="app-description" data-testid="app-description">
            {description}
          </div>
        ) : null}
      </div>
    </div>
  );
}

/**
 * Every Portico sign-in form (an app's card, the console, the central): the refusal, when there is one, then email
 * and password, the way back in for a forgotten password, and the button.
 */
/** `email`: what the person typed before the server refused the form (app/auth/_lib/typed-email.ts), typed again for them. */
export async function PasswordSignInForm(props: {
  action: string;
  recoverHref: string;
  error?: ReactNode;
  hidden?: Record<string, string>;
  email?: string;
  /**
   * Home realm discovery: the address comes first, alone; the server sends the person to their company's identity
   * provider when an enterprise connection has the address's domain, or back here for the password.
   */
  emailFirst?: boolean;
}) {
  const t = await getT('signIn');
  return (
    <>
      {props.error ? (
        <div className="alert alert-error" role="alert" id="sign-in-error" data-testid="sign-in-error">
          {props.error}
        </div>
      ) : null}
      <form method="post" action={props.action}>
        {props.emailFirst ? (
          <>
            <div className="field">
              <label htmlFor="email">{t('email')}</label>
              <input id="email" name="email" type="email" autoComplete="username" required maxLength={320} autoFocus defaultValue={props.email} aria-describedby="email-first-hint" />
              <p className="field-hint" id="email-first-hint">
                {t('emailFirstHint')}
              </p>
            </div>
            <input type="hidden" name="step" value="email" />
          </>
        ) : (
          <PasswordFields recoverHref={props.recoverHref} email={props.email} refused={Boolean(props.error)} />
        )}
        {Object.entries(props.hidden ?? {}).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <button className="button" type="submit">
          {props.emailFirst ? t('continue') : t('submit')}
        </button>
      </form>
      <p className="divider" aria-hidden="true">
        {t('or')}
      </p>
      {/* The same route takes the passkey's answer instead of email and password. */}
      <PasskeyButton action={props.action} purpose="sign_in" label={t('withPasskey')} hidden={props.hidden} />
    </>
  );
}

/** The email and password inputs of every Portico sign-in form, with the way back in for a forgotten password. */
export async function PasswordFields({ recoverHref, email, refused }: { recoverHref: string; email?: string; refused?: boolean }) {
  const t = await getT('signIn');
  return (
    <>
      <div className="field">
        <label htmlFor="email">{t('email')}</label>
        <input id="email" name="email" type="email" autoComplete="username" required maxLength={320} autoFocus={!email} defaultValue={email} />
      </div>
      <div className="field">
        <label htmlFor="password">{t('password')}</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          maxLength={1024}
          autoFocus={Boolean(email)}
          aria-invalid={refused ? true : undefined}
          aria-describedby={refused ? 'sign-in-error' : undefined}
        />
        <a href={recoverHref} className="field-hint" data-testid="forgot-password">
          {t('forgotPassword')}
        </a>
      </div>
    </>
  );
}

/**
 * The second step of every Portico sign-in (app card, console, central): a code from the person's authenticator
 * app, or one of their recovery codes. The error stands next to the field it is about.
 */
export async function SecondFactorForm(props: { action: string; factors: { totp: boolean; passkey: boolean }; error?: string; attemptsLeft?: number; recovery?: boolean }) {
  const t = await getT('secondFactor');
  const errorId = props.error ? 'second-factor-error' : undefined;
  const codeForm = props.recovery || props.factors.totp;
  return (
    <>
      <p>
        {t('intro')}{' '}
        {props.recovery ? t('enterRecoveryCode') : props.factors.totp ? (props.factors.passkey ? t('enterCodeOrPasskey') : t('enterCode')) : t('usePasskeyOnly')}
      </p>
      {props.error && !codeForm ? (
        <div className="alert alert-error" role="alert" data-testid="second-factor-error">
          {props.error}
        </div>
      ) : null}
      {codeForm ? (
        <form method="post" action={props.action} data-testid="second-factor-form">
          <input type="hidden" name="method" value={props.recovery ? 'recovery_code' : 'totp'} />
          <div className="field">
            <label htmlFor="code">{props.recovery ? t('recoveryCodeLabel') : t('codeLabel')}</label>
            <input
              id="code"
              name="code"
              required
              autoFocus
              autoComplete="one-time-code"
              inputMode={props.recovery ? 'text' : 'numeric'}
              maxLength={props.recovery ? 24 : 8}
              pattern={props.recovery ? undefined : '[0-9 ]{6,8}'}
              aria-invalid={props.error ? true : undefined}
              aria-describedby={errorId}
            />
            {props.error ? (
              <span className="field-error" id={errorId} role="alert" data-testid="second-factor-error">
                {props.error}
              </span>
            ) : null}
          </div>
          <button className="button" type="submit">
            {t('continue')}
          </button>
        </form>
      ) : null}
      {props.factors.passkey && !props.recovery ? (
        <PasskeyButton action={props.action} purpose="second_factor" label={t('usePasskey')} secondary={props.factors.totp} />
      ) : null}
      <p className="footnote">
        {props.recovery ? (
          <a href="?">{props.factors.totp ? t('useAuthenticatorInstead') : t('usePasskeyInstead')}</a>
        ) : (
          <a href="?method=recovery_code" data-testid="use-recovery-code">
            {props.factors.totp ? t('lostAuthenticator') : t('lostPasskey')}
          </a>
        )}
      </p>
    </>
  );
}

export type SecondFactorErrorCode = 'wrong' | 'expired' | 'throttled';

/** The message of a second-step error code, in the request's language. */
export async function secondFactorError(code: SecondFactorErrorCode): Promise<string> {
  return (await getT('secondFactor'))(`errors.${code}`);
}

/** The message for a second step that ended (the password step shows it), from the query's code only. */
export async function endedSecondStepMessage(value: unknown): Promise<string | undefined> {
  return value === 'expired' || value === 'throttled' ? secondFactorError(value) : undefined;
}
