// POST /console/account/sign-out-everywhere – ends every other session of the person (other consoles, the central,
// every app sign-in), in one transaction with its audit event. CSRF: SameSite cookie, and the Origin must be Portico's.
import { endOtherAccountSessions } from '@/lib/accounts/sessions';
import { recordAuditEvent } from '@/lib/audit/events';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { db, runtime } from '@/lib/runtime';
import { currentConsoleSession } from '../../_lib/session';

export const dynamic = 'force-dynamic';

export async function POST(request: Request) {
  if (request.headers.get('origin') !== runtime().env.PORTICO_ISSUER) {
    return new Response('Cross-origin request refused.', { status: 403, headers: { 'Content-Type': 'text/plain' } });
  }
  const session = await currentConsoleSession();
  if (!session) return new Response(null, { status: 303, headers: { Location: '/console/login' } });
  await db().transaction(async (tx) => {
    const ended = await endOtherAccountSessions(tx, session.user.id, session.tokenHash);
    await recordAuditEvent(tx, {
      orgId: null,
      actor: { type: 'person', id: session.user.id, label: session.user.email, ip: clientIpFromHeaders(request.headers) },
      action: 'person.signed_out_everywhere',
      subject: { type: 'person', id: session.user.id, label: session.user.email },
      details: ended,
    });
  });
  return new Response(null, { status: 303, headers: { Location: '/console/account?done=others-signed-out#sessions', 'Cache-Control': 'no-store' } });
}
