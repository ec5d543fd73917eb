import type { ReactNode } from 'react';
import { DEMO_CALLBACK_PATH } from '@/lib/env';
import { getT } from '@/app/_lib/i18n/server';
import { db, runtime } from '@/lib/runtime';
import { readDemoSeed } from '@/lib/seed/demo';

export const dynamic = 'force-dynamic';

export default async function HomePage() {
  const issuer = runtime().env.PORTICO_ISSUER;
  const demo = await readDemoSeed(db());
  const demoTryable = demo?.redirectUri === `${issuer}${DEMO_CALLBACK_PATH}`;
  const t = await getT('home');
  const code = (chunks: ReactNode) => <code>{chunks}</code>;
  return (
    <main className="home">
      <h1>Portico</h1>
      <p>{t('intro')}</p>
      {demoTryable ? (
        <p>
          <a className="button button-inline" href="/demo/sign-in">
            {t('tryDemo')}
          </a>
        </p>
      ) : null}
      <h2>{t('whereToGo')}</h2>
      <ul>
        <li>{t.rich('console', { link: (chunks) => <a href="/console">{chunks}</a> })}</li>
        {runtime().env.PORTICO_CENTRAL_ENABLED ? <li>{t.rich('central', { link: (chunks) => <a href="/central">{chunks}</a> })}</li> : null}
        <li>{t.rich('docs', { code })}</li>
        <li>
          {t.rich('issuer', {
            issuer,
            code,
            openid: (chunks) => <a href="/.well-known/openid-configuration">{chunks}</a>,
            oauth: (chunks) => <a href="/.well-known/oauth-authorization-server">{chunks}</a>,
          })}
        </li>
        <li>{t.rich('keys', { link: (chunks) => <a href="/oidc/jwks">{chunks}</a> })}</li>
        <li>{t.rich('health', { health: (chunks) => <a href="/api/health">{chunks}</a>, ready: (chunks) => <a href="/api/ready">{chunks}</a> })}</li>
      </ul>
      <p>{t.rich('demoCredentials', { code })}</p>
    </main>
  );
}
