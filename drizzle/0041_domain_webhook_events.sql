-- An organization's domain events are security events for its webhooks too: a domain added, verified or removed
-- changes whose addresses the organization answers for (lib/identity/domains.ts). A check that found nothing
-- (org.domain_checked) stays in the audit only. The rest of the mapping is unchanged (drizzle/0032_webhook_events.sql).
CREATE OR REPLACE FUNCTION portico_webhook_event_type(action text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN action IN ('approval.requested', 'approval.expired', 'approval.escalated', 'approval.grant_revoked') THEN action
    WHEN action IN ('approval.approved', 'approval.denied', 'approval.cancelled') THEN 'approval.decided'
    WHEN action = 'mcp.tool_confirmed' THEN 'confirmation.confirmed'
    WHEN action = 'mcp.tool_denied' THEN 'confirmation.denied'
    WHEN action LIKE 'confirmation.%' THEN action
    WHEN action LIKE 'member.%' THEN action
    WHEN action IN ('invitation.sent', 'invitation.resent', 'invitation.accepted', 'invitation.revoked') THEN 'member.' || replace(action, '.', '_')
    WHEN action LIKE 'app.%' THEN action
    WHEN action IN ('second_factor.enrolled', 'second_factor.removed', 'second_factor.recovery_codes_replaced', 'password.changed', 'password.set_up', 'password.reset_requested', 'password.reset_completed', 'password.reset_link_issued', 'password.reset_link_sent', 'person.signed_out_everywhere', 'person.session_ended', 'org.second_factor_policy_updated', 'client.revoked', 'org.domain_added', 'org.domain_verified', 'org.domain_removed')
      THEN 'security.' || replace(action, '.', '_')
    ELSE NULL
  END
$$;
