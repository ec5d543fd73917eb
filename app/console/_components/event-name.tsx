// Audit actions and webhook event types as people read them: the name from the catalogs, with the code beside it
// (the code is what the API, the exports and the webhooks carry, and what a person searches for). A code the
// catalogs do not name (an app's own `app.…` webhook type) shows alone.
import { auditActionName, webhookEventName } from '@/lib/audit/actions';
import { getT, requestLocale } from '@/app/_lib/i18n/server';

/** A code with its name, when it has one (a list computes names once, for its language: no await per row). */
export function Named({ name, code }: { name: string | undefined; code: string }) {
  if (!name) return <code className="min-w-0 break-all text-xs">{code}</code>;
  return (
    <span className="min-w-0">
      {name} <code className="break-all text-xs text-slate-600">{code}</code>
    </span>
  );
}

export async function AuditActionName({ action }: { action: string }) {
  return <Named name={auditActionName(await requestLocale(), action)} code={action} />;
}

/** One subscription of a webhook endpoint: every event, a family's (`member.*`), or one type. */
export async function WebhookSubscriptionName({ subscription }: { subscription: string }) {
  const t = await getT('console.webhooks.events');
  if (subscription === '*') return <Named name={t('everything')} code="*" />;
  if (subscription.endsWith('.*')) {
    const family = subscription.slice(0, -2);
    return <Named name={t.has(`families.${family}` as never) ? t(`families.${family}` as never) : undefined} code={subscription} />;
  }
  return <Named name={webhookEventName(await requestLocale(), subscription)} code={subscription} />;
}
