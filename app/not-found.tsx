import Link from 'next/link';
import { SignInFrame } from './auth/app/_components/sign-in-frame';

export default function NotFound() {
  return (
    <SignInFrame>
      <h1>Not found</h1>
      <p>There is nothing here, or you do not have access to it.</p>
      <p>
        <Link href="/">Portico home</Link> · <Link href="/console">Console</Link>
      </p>
    </SignInFrame>
  );
}
