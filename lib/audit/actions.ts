// The audit actions Portico records, and their names for people. The codes are the log's and the API's; pages
// show the name from the message catalogs (events.audit.<family>.<name>) with the code beside it (issue: an admin
// reading "app.created" in a Portuguese console). test/audit/action-names.test.ts finds every action the code
// records in this list, and the catalogs name each one in every language.
import { translator } from '../i18n/catalogs';

export const AUDIT_ACTIONS = [
  'agent.connection_created',
  'agent.connection_deleted',
  'agent.created',
  'agent.deleted',
  'agent.disabled',
  'agent.enabled',
  'agent.id_jag_accepted',
  'agent.id_jag_issued',
  'agent.moved_in',
  'agent.moved_out',
  'agent.renamed',
  'agent.scope_granted',
  'agent.scope_revoked',
  'agent.token_issued',
  'agent.token_requested',
  'agent.user_added',
  'agent.user_removed',
  'app.access_revoked',
  'app.backchannel_logout_removed',
  'app.backchannel_logout_set',
  'app.ciba_disabled',
  'app.ciba_enabled',
  'app.created',
  'app.deleted',
  'app.descriptions_updated',
  'app.dev_environment_off',
  'app.dev_environment_on',
  'app.disabled',
  'app.enabled',
  'app.id_token_alg_changed',
  'app.nonce_without_pkce_allowed',
  'app.nonce_without_pkce_forbidden',
  'app.operator_added',
  'app.operator_removed',
  'app.permission_added',
  'app.permission_described',
  'app.permission_restored',
  'app.permission_retired',
  'app.post_logout_redirect_uri_added',
  'app.post_logout_redirect_uri_removed',
  'app.redirect_uri_added',
  'app.redirect_uri_removed',
  'app.secret_rotation_cancelled',
  'app.secret_rotation_completed',
  'app.secret_rotation_started',
  'app.surface_declared',
  'app.surface_secret_created',
  'app.surface_secret_replaced',
  'app.surface_verified',
  'app.updated',
  'approval.approved',
  'approval.cancelled',
  'approval.denied',
  'approval.escalated',
  'approval.expired',
  'approval.grant_revoked',
  'approval.requested',
  'approval.vote_recorded',
  'approval_policy.created',
  'approval_policy.removed',
  'approval_policy.updated',
  'audit.retention_changed',
  'client.authorization_refused',
  'client.consent_denied',
  'client.consent_given',
  'client.consent_refused',
  'client.external_registered',
  'client.registered',
  'client.registrations_removed',
  'client.removed_unused',
  'client.revoked',
  'confirmation.expired',
  'confirmation.requested',
  'email.verified',
  'identity.account_created',
  'identity.account_linked',
  'identity.assertion_issuer_trusted',
  'identity.assertion_issuer_untrusted',
  'identity.connection_created',
  'identity.connection_deleted',
  'identity.connection_disabled',
  'identity.connection_enabled',
  'identity.connection_tested',
  'identity.connection_updated',
  'identity.link_removed',
  'identity.remote_mcp_server_added',
  'identity.remote_mcp_server_removed',
  'identity.scim_token_issued',
  'identity.scim_token_revoked',
  'identity.sign_in_refused',
  'invitation.accepted',
  'invitation.resent',
  'invitation.revoked',
  'invitation.sent',
  'mcp.tool_challenge_issued',
  'mcp.tool_confirmed',
  'mcp.tool_denied',
  'mcp.tool_failed',
  'mcp.tool_succeeded',
  'member.added',
  'member.removed',
  'member.role_changed',
  'org.branding_updated',
  'org.created',
  'org.default_locale_updated',
  'org.default_time_zone_updated',
  'org.deleted',
  'org.domain_added',
  'org.domain_checked',
  'org.domain_removed',
  'org.domain_verified',
  'org.renamed',
  'org.second_factor_policy_updated',
  'password.changed',
  'password.reset_completed',
  'password.reset_link_issued',
  'password.reset_link_sent',
  'password.reset_requested',
  'password.set_up',
  'person.created',
  'person.scope_granted',
  'person.scope_revoked',
  'person.session_ended',
  'person.signed_out_everywhere',
  'scim.group_created',
  'scim.group_deleted',
  'scim.group_updated',
  'scim.user_created',
  'scim.user_deactivated',
  'scim.user_deleted',
  'scim.user_reactivated',
  'scim.user_updated',
  'second_factor.enrolled',
  'second_factor.recovery_codes_replaced',
  'second_factor.removed',
  'sign_in.failed',
  'sign_in.succeeded',
  'sign_in.throttled',
  'team.created',
  'team.member_added',
  'team.member_removed',
  'team.scope_granted',
  'team.scope_revoked',
  'user.deleted',
  'user.disabled',
  'user.enabled',
  'webhook.created',
  'webhook.deleted',
  'webhook.redelivered',
  'webhook.secret_rotated',
  'webhook.test_sent',
  'webhook.updated',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The person-readable name of an audit action in `locale`, or undefined for a code the catalogs do not name. */
export function auditActionName(locale: string, action: string): string | undefined {
  const t = translator(locale, 'events');
  return /^[a-z_]+\.[a-z_]+$/.test(action) && t.has(`audit.${action}` as never) ? t(`audit.${action}` as never) : undefined;
}

/** The name of an audit family ("app" → "Apps"), or undefined. */
export function auditFamilyName(locale: string, family: string): string | undefined {
  const t = translator(locale, 'events');
  return /^[a-z_]+$/.test(family) && t.has(`auditFamilies.${family}` as never) ? t(`auditFamilies.${family}` as never) : undefined;
}

/** The name of a webhook event type (`member.invitation_sent`), or undefined (apps' own `app.…` types have none). */
export function webhookEventName(locale: string, type: string): string | undefined {
  const t = translator(locale, 'events');
  return /^[a-z_]+\.[a-z_]+$/.test(type) && t.has(`webhook.${type}` as never) ? t(`webhook.${type}` as never) : undefined;
}

/** Who acted, as a word (`person` → "pessoa"); a type the catalogs do not name shows as its code. */
export function auditActorTypeName(locale: string, type: string): string {
  const t = translator(locale, 'events');
  return /^[a-z_]+$/.test(type) && t.has(`actorTypes.${type}` as never) ? t(`actorTypes.${type}` as never) : type;
}

/** What an event is about, as a word (`team` → "equipe"); a type the catalogs do not name shows as its code. */
export function auditSubjectTypeName(locale: string, type: string): string {
  const t = translator(locale, 'events');
  return /^[a-z_]+$/.test(type) && t.has(`subjectTypes.${type}` as never) ? t(`subjectTypes.${type}` as never) : type;
}
