// The "Forgot password?" card: an email field, then — whatever the email — the same "check your mail" answer.
export function RecoveryCard(props: { action: string; sent: boolean; invalidEmail: boolean; back: { href: string; label: string } }) {
  if (props.sent) {
    return (
      <>
        <h1>Check your mail</h1>
        <div className="alert alert-success" role="status" data-testid="recovery-sent">
          If an account has this address, a link to choose a new password is on its way. It works once, for 30 minutes.
        </div>
        <p>No mail after a few minutes? Check the spam folder, or ask again.</p>
        <p>
          <a href={props.back.href}>{props.back.label}</a>
        </p>
      </>
    );
  }
  return (
    <>
      <h1>Forgot your password?</h1>
      <p>Enter the email of your account. We will mail you a link to choose a new password.</p>
      <form method="post" action={props.action} data-testid="recovery-form">
        <div className="field">
          <label htmlFor="email">Email</label>
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
              Enter an email address, such as ada@example.com.
            </p>
          ) : null}
        </div>
        <button className="button" type="submit">
          Send me a link
        </button>
      </form>
      <div className="form-links">
        <a href={props.back.href}>{props.back.label}</a>
      </div>
    </>
  );
}
