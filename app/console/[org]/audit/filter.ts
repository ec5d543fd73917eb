// The audit log's filters, read from the query string by the page and by the export alike.
import type { AuditFilter } from '@/lib/audit/events';
import { isUuid } from '@/lib/util/uuid';

type Query = Record<string, string | string[] | undefined> | URLSearchParams;

function get(query: Query, name: string): string | undefined {
  const value = query instanceof URLSearchParams ? query.get(name) : query[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text && text.trim() !== '' ? text.trim().slice(0, 200) : undefined;
}

function date(value: string | undefined, endOfDay: boolean): Date | undefined {
  if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const parsed = new Date(`${value}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z`);
  return Number.isNaN(parsed.getTime()) ? undefined : parsed;
}

export function auditFilterFrom(query: Query): { filter: AuditFilter; values: Record<string, string> } {
  const values = Object.fromEntries(['actor', 'subject', 'app', 'action', 'from', 'to'].map((name) => [name, get(query, name) ?? '']));
  const appId = values.app && isUuid(values.app) ? values.app : undefined;
  return {
    filter: {
      actor: values.actor || undefined,
      subject: values.subject || undefined,
      appId,
      action: values.action || undefined,
      from: date(values.from, false),
      to: date(values.to, true),
    },
    values,
  };
}
