// POST /console/<org>/settings/identity/test/start – "Test" on a connection: an owner signs in at the company's
// identity provider, and Portico shows what it would map (test/page.tsx) without signing anyone in or making anything.
import { cookies } from 'next/headers';
import { CONSOLE_SESSION_COOKIE, findConsoleSession } from '@/lib/accounts/console-sessions';
import { findMembershipRole } from '@/lib/organizations/memberships';
import { findOrganizationBySlug } from '@/lib/organizations/organizations';
import { can } from '@/lib/organizations/permissions';
import { recordAuditEvent } from '@/lib/audit/events';
import { readCappedForm } from '@/lib/http/body';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { connectionOfOrg } from '@/lib/identity/connections';
import { federationCookie } from '@/lib/identity/federation/core';
import { beginFederatedSignIn } from '@/lib/identity/federation/begin';
import { db, runtime } from '@/lib/runtime';
import { federationDeps } from '@/app/auth/federation/_lib/deps';
import { seeOther } from '@/app/auth/_lib/redirects';

export const dynamic = 'force-dynamic';

export async function POST(request: Request, { params }: { params: Promise<{ org: string }> }): Promise<Response> {
  if (request.headers.get('origin') !== runtime().env.PORTICO_ISSUER) return new Response('Cross-origin request refused.', { status: 403, headers: { 'Content-Type': 'text/plain' } });
  const session = await findConsoleSession(db(), (await cookies()).get(CONSOLE_SESSION_COOKIE)?.value);
  const org = await findOrganizationBySlug(db(), (await params).org);
  const role = session && org ? await findMembershipRole(db(), org.id, session.user.id) : undefined;
  if (!session || !org || !can(role, 'identity.manage')) return new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain' } });
  const form = await readCappedForm(request, 4 * 1024).catch(() => undefined);
  const identity = `/console/${org.slug}/settings/identity/connections`;
  const connection = await connectionOfOrg(db(), org.id, String(form?.get('connection') ?? '')).catch(() => undefined);
  if (!connection) return seeOther(identity);
  try {
    const started = await beginFederatedSignIn(db(), federationDeps(), connection, { surface: 'test', orgId: org.id, orgSlug: org.slug, userId: session.user.id });
    await recordAuditEvent(db(), {
      orgId: org.id,
      actor: { type: 'person', id: session.user.id, label: session.user.email, ip: clientIpFromHeaders(request.headers) },
      action: 'identity.connection_tested',
      subject: { type: 'identity_connection', id: connection.id, label: connection.name },
    });
    return seeOther(started.location, federationCookie(started.token, runtime().env.issuerIsHttps));
  } catch {
    return seeOther(`/auth/federation/refused?reason=idp_error&back=${encodeURIComponent(identity)}`);
  }
}
