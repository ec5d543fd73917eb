// POST /auth/app/<uid>/enrolled – the app sign-in that required a second factor continues here, once the person set
// one up on /account/two-step-setup: under the interaction's own path, where its cookie is sent.
import { cookies } from 'next/headers';
import { finishEnrollment, SECOND_STEP_COOKIE, TWO_STEP_SETUP_PATH } from '@/lib/accounts/sign-in-second-step';
import { db } from '@/lib/runtime';
import { continueSignIn } from '../../../_lib/continue-sign-in';
import { interactionRoute, seeOther } from '../../_lib/responses';

export const dynamic = 'force-dynamic';

export const POST = interactionRoute(async (request, { uid }) => {
  const done = await finishEnrollment(db(), (await cookies()).get(SECOND_STEP_COOKIE)?.value, { surface: 'app', uid });
  if (!done) return seeOther(TWO_STEP_SETUP_PATH);
  return continueSignIn(request, done);
});
