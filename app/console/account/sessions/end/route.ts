// POST /console/account/sessions/end – ends one of the signed-in person's sessions (another browser's console, a
// central, an app sign-in), with its audit event, then back to the account page. Only the person's own sessions can
// be named (lib/accounts/sessions.ts matches the id with the user id). CSRF: SameSite cookie, and the Origin must be
// Portico's.
import { endAccountSession, type AccountSessionKind } from '@/lib/accounts/sessions';
import { recordAuditEvent } from '@/lib/audit/events';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { db, runtime } from '@/lib/runtime';
import { currentConsoleSession } from '../../../_lib/session';

export const dynamic = 'force-dynamic';

const KINDS: readonly AccountSessionKind[] = ['console', 'central', 'embedded-central', 'app'];

const back = (done: string) => new Response(null, { status: 303, headers: { Location: `/console/account?done=${done}#sessions`, 'Cache-Control': 'no-store' } });

export async function POST(request: Request) {
  if (request.headers.get('origin') !== runtime().env.PORTICO_ISSUER) {
    return new Response('Cross-origin request refused.', { status: 403, headers: { 'Content-Type': 'text/plain' } });
  }
  const session = await currentConsoleSession();
  if (!session) return new Response(null, { status: 303, headers: { Location: '/console/login?next=%2Fconsole%2Faccount' } });
  const form = await request.formData().catch(() => undefined);
  const kind = form?.get('kind');
  const id = form?.get('id');
  if (typeof kind !== 'string' || !KINDS.includes(kind as AccountSessionKind) || typeof id !== 'string' || id === '' || id.length > 200) return back('session-unknown');
  // This browser's own console session is ended by signing out, which also clears its cookie.
  if (kind === 'console' && id === session.tokenHash) return back('session-current');
  const ended = await db().transaction(async (tx) => {
    if (!(await endAccountSession(tx, session.user.id, kind as AccountSessionKind, id))) return false;
    await recordAuditEvent(tx, {
      orgId: null,
      actor: { type: 'person', id: session.user.id, label: session.user.email, ip: clientIpFromHeaders(request.headers) },
      action: 'person.session_ended',
      subject: { type: 'person', id: session.user.id, label: session.user.email },
      details: { kind },
    });
    return true;
  });
  return back(ended ? 'session-ended' : 'session-unknown');
}
