import { DEMO_CALLBACK_PATH } from '@/lib/env';
import { db, runtime } from '@/lib/runtime';
import { readDemoSeed } from '@/lib/seed/demo';

export const dynamic = 'force-dynamic';

export default async function HomePage() {
  const issuer = runtime().env.PORTICO_ISSUER;
  const demo = await readDemoSeed(db());
  const demoTryable = demo?.redirectUri === `${issuer}${DEMO_CALLBACK_PATH}`;
  return (
    <main className="home">
      <h1>Portico</h1>
      <p>
        Portico is the identity and approval plane for the apps an organization publishes and for the AI agents that use
        them: an OpenID Connect / OAuth 2.1 provider, a gateway that makes risky actions wait for a human, and an approval
        central for operators.
      </p>
      {demoTryable ? (
        <p>
          <a className="button button-inline" href="/demo/sign-in">
            Try signing in to the demo app
          </a>
        </p>
      ) : null}
      <h2>Where to go</h2>
      <ul>
        <li>
          <a href="/console">The console</a>: org admins manage apps, clients, agents, members and settings; anyone signed in can create an
          organization.
        </li>
        {runtime().env.PORTICO_CENTRAL_ENABLED ? (
          <li>
            <a href="/central">The operator central</a>: operators decide the access agents ask for.
          </li>
        ) : null}
        <li>
          The documentation is in the <code>docs/</code> folder of Portico&apos;s source (start with <code>README.md</code>); the operator
          CLI explains itself: <code>npm run portico -- --help</code>.
        </li>
        <li>
          Apps sign people in through the issuer <code>{issuer}</code>; its metadata is at{' '}
          <a href="/.well-known/openid-configuration">/.well-known/openid-configuration</a> (also served as{' '}
          <a href="/.well-known/oauth-authorization-server">/.well-known/oauth-authorization-server</a>).
        </li>
        <li>
          Signing keys: <a href="/oidc/jwks">/oidc/jwks</a>.
        </li>
        <li>
          Health: <a href="/api/health">/api/health</a> and readiness: <a href="/api/ready">/api/ready</a>.
        </li>
      </ul>
      <p>The demo owner&apos;s credentials are printed by <code>npm start</code> on first start.</p>
    </main>
  );
}
