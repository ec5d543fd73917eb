// The events an organization's webhooks can subscribe to. Which audit action becomes which event is decided in one
// place, the database function portico_webhook_event_type (drizzle/0032_webhook_events.sql), because the audit
// trigger fans events out in the transaction that records them; this file names the types for people (the console's
// checkboxes, the CLI's validation) and turns an event into a chat line. test/webhooks/webhooks.test.ts checks that
// both agree.
import { visibleText } from '../util/visible-text';

export const WEBHOOK_EVENT_FAMILIES = ['approval', 'confirmation', 'member', 'app', 'gateway', 'agent', 'security'] as const;
export type WebhookEventFamily = (typeof WEBHOOK_EVENT_FAMILIES)[number];

/** The event types that may be named one by one; every other type of a family is reached through `<family>.*`. */
export const WEBHOOK_EVENT_TYPES = [
  'approval.requested',
  'approval.decided',
  'approval.expired',
  'approval.escalated',
  'approval.grant_revoked',
  'confirmation.requested',
  'confirmation.confirmed',
  'confirmation.denied',
  'confirmation.expired',
  'member.added',
  'member.removed',
  'member.role_changed',
  'member.invitation_sent',
  'member.invitation_resent',
  'member.invitation_accepted',
  'member.invitation_revoked',
  'gateway.server_added',
  'gateway.server_removed',
  'gateway.server_disabled',
  'gateway.server_enabled',
  'gateway.tool_added',
  'gateway.tool_changed',
  'gateway.tool_removed',
  'gateway.tool_approved',
  'gateway.tool_level_changed',
  'gateway.tool_permission_changed',
  'gateway.server_credential_changed',
  'agent.disabled',
  'agent.enabled',
  'agent.suspended',
  'agent.deleted',
  'agent.key_added',
  'agent.key_removed',
  'agent.jwks_uri_changed',
  'agent.trust_rule_added',
  'agent.trust_rule_removed',
  'agent.sponsor_changed',
  'security.second_factor_enrolled',
  'security.second_factor_removed',
  'security.second_factor_recovery_codes_replaced',
  'security.password_changed',
  'security.password_set_up',
  'security.password_reset_requested',
  'security.password_reset_completed',
  'security.password_reset_link_issued',
  'security.password_reset_link_sent',
  'security.person_signed_out_everywhere',
  'security.person_session_ended',
  'security.org_second_factor_policy_updated',
  'security.client_revoked',
  'security.org_domain_added',
  'security.org_domain_verified',
  'security.org_domain_removed',
] as const;

/** A subscription: `*`, a family (`approval.*`), an event type listed above, or an `app.…` type (apps' events are many). */
export function isWebhookSubscription(value: string): boolean {
  if (value === '*') return true;
  if (value.endsWith('.*')) return (WEBHOOK_EVENT_FAMILIES as readonly string[]).includes(value.slice(0, -2));
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value) || /^app\.[a-z_]{1,60}$/.test(value);
}

/** Whether a subscription list asks for this type (the same rule as the trigger's). */
export function subscribesTo(events: readonly string[], type: string): boolean {
  return events.includes('*') || events.includes(type) || events.includes(`${type.split('.')[0]}.*`);
}

/** The Standard Webhooks envelope Portico sends (built by the audit trigger). */
export interface WebhookEvent {
  type: string;
  timestamp: string;
  data: {
    event_id?: number;
    action?: string;
    organization_id?: string;
    actor?: { type: string; id: string | null; label: string | null };
    subject?: { type: string; id: string | null; label: string | null } | null;
    app_id?: string | null;
    client_id?: string | null;
    act?: string | null;
    details?: Record<string, unknown>;
    [key: string]: unknown;
  };
}

/** Slack's mrkdwn treats &, < and > as control characters (its "Formatting text" guide): escaped, and formatting characters shown. */
function chatText(value: unknown): string {
  return visibleText(String(value ?? '')).replace(/[\u0000-\u001F\u007F]/g, ' ').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A "Slack-compatible" endpoint gets one line of text: what happened, who did it, to what. */
export function chatMessage(event: WebhookEvent, organizationName: string): { text: string } {
  const { actor, subject } = event.data;
  const who = actor ? (actor.label ?? actor.id ?? actor.type) : undefined;
  const what = subject ? (subject.label ?? subject.id) : undefined;
  const parts = [`[${chatText(organizationName)}] ${chatText(event.type)}`];
  if (who) parts.push(`by ${chatText(who)}`);
  if (what) parts.push(`on ${chatText(subject?.type)} ${chatText(what)}`);
  return { text: `${parts.join(' ')} (Portico, ${chatText(event.timestamp)})` };
}
