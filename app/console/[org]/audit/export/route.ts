// GET /console/<org>/audit/export?format=csv|json&<filters> – the filtered audit log as a download.
import { cookies } from 'next/headers';
import { findConsoleSession, CONSOLE_SESSION_COOKIE } from '@/lib/accounts/console-sessions';
import { findMembershipRole } from '@/lib/organizations/memberships';
import { findOrganizationBySlug } from '@/lib/organizations/organizations';
import { can } from '@/lib/organizations/permissions';
import { searchAuditEvents, type AuditEvent } from '@/lib/audit/events';
import { db } from '@/lib/runtime';
import { auditFilterFrom } from '../filter';
import { getT } from '@/app/_lib/i18n/server';

export const dynamic = 'force-dynamic';

const MAX_EVENTS = 100_000;
const BATCH = 1_000;

function csvCell(value: unknown): string {
  const text = value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  // Quote always; neutralize spreadsheet formulas (CSV injection).
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return `"${safe.replaceAll('"', '""')}"`;
}

const COLUMNS: (keyof AuditEvent)[] = ['id', 'occurredAt', 'actorType', 'actorId', 'actorLabel', 'action', 'subjectType', 'subjectId', 'subjectLabel', 'appId', 'clientId', 'act', 'ip', 'details'];

export async function GET(request: Request, { params }: { params: Promise<{ org: string }> }) {
  const session = await findConsoleSession(db(), (await cookies()).get(CONSOLE_SESSION_COOKIE)?.value);
  const org = await findOrganizationBySlug(db(), (await params).org);
  const role = session && org ? await findMembershipRole(db(), org.id, session.user.id) : undefined;
  if (!session || !org || !can(role, 'audit.read')) return new Response((await getT('console.audit'))('exportNotFound'), { status: 404 });

  const url = new URL(request.url);
  const format = url.searchParams.get('format') === 'json' ? 'json' : 'csv';
  const { filter } = auditFilterFrom(url.searchParams);

  const events: AuditEvent[] = [];
  let before: number | undefined;
  do {
    const page = await searchAuditEvents(db(), org.id, filter, { before, limit: BATCH });
    events.push(...page.events);
    before = page.nextBefore;
  } while (before && events.length < MAX_EVENTS);

  const stamp = new Date().toISOString().slice(0, 10);
  const body =
    format === 'json'
      ? JSON.stringify(events, null, 2)
      : [COLUMNS.join(','), ...events.map((event) => COLUMNS.map((column) => csvCell(column === 'occurredAt' ? event.occurredAt.toISOString() : event[column])).join(','))].join('\r\n');
  return new Response(body, {
    headers: {
      'Content-Type': format === 'json' ? 'application/json' : 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="audit-${org.slug}-${stamp}.${format}"`,
      'Cache-Control': 'no-store',
    },
  });
}
