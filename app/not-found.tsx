import Link from 'next/link';
import { getT } from '@/app/_lib/i18n/server';
import { SignInFrame } from './auth/app/_components/sign-in-frame';

export default async function NotFound() {
  const t = await getT('notFound');
  return (
    <SignInFrame>
      <h1>{t('title')}</h1>
      <p>{t('body')}</p>
      <p>
        <Link href="/">{t('home')}</Link> · <Link href="/console">{t('console')}</Link>
      </p>
    </SignInFrame>
  );
}
