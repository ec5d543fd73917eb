-- Mail queued before this migration moves to the one outbound outbox (lib/db/schema/deliveries.ts).
INSERT INTO outbound_deliveries (channel, recipient, sealed_payload, created_at, next_attempt_at, attempts, last_error, failed_at)
SELECT 'mail', recipient, sealed_message, created_at, next_attempt_at, attempts, last_error, failed_at FROM mail_outbox;
--> statement-breakpoint
-- The webhook event type of an audit action, or NULL when the action is not published to webhooks. One home for the
-- mapping (docs/approvals.md lists the types): decisions are one `approval.decided` whatever they decided; a gated
-- tool's challenge, confirmation and denial are `confirmation.*`; what touches a person's credentials or sessions is
-- `security.*`.
CREATE FUNCTION portico_webhook_event_type(action text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN action IN ('approval.requested', 'approval.expired', 'approval.escalated', 'approval.grant_revoked') THEN action
    WHEN action IN ('approval.approved', 'approval.denied', 'approval.cancelled') THEN 'approval.decided'
    WHEN action = 'mcp.tool_confirmed' THEN 'confirmation.confirmed'
    WHEN action = 'mcp.tool_denied' THEN 'confirmation.denied'
    WHEN action LIKE 'confirmation.%' THEN action
    WHEN action LIKE 'member.%' THEN action
    WHEN action IN ('invitation.sent', 'invitation.resent', 'invitation.accepted', 'invitation.revoked') THEN 'member.' || replace(action, '.', '_')
    WHEN action LIKE 'app.%' THEN action
    WHEN action IN ('second_factor.enrolled', 'second_factor.removed', 'second_factor.recovery_codes_replaced', 'password.changed', 'password.set_up', 'password.reset_requested', 'password.reset_completed', 'password.reset_link_issued', 'password.reset_link_sent', 'person.signed_out_everywhere', 'person.session_ended', 'org.second_factor_policy_updated', 'client.revoked')
      THEN 'security.' || replace(action, '.', '_')
    ELSE NULL
  END
$$;
--> statement-breakpoint
-- Every published audit event becomes one delivery per subscribed, enabled endpoint of its organization, in the
-- transaction that records it: a change and its webhooks commit or roll back together, and no writer can forget
-- them. An event about a person with no organization (their own second factor, their password) goes to every
-- organization they are a member of. The payload is the Standard Webhooks envelope; it holds no secret and no
-- client address (the audit's `ip` stays in the audit). `webhook-id` is derived from the audit event, so a
-- receiver can tell a retry or a redelivery from a new event.
CREATE FUNCTION portico_webhook_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  event_type text := portico_webhook_event_type(NEW.action);
BEGIN
  IF event_type IS NULL THEN
    RETURN NULL;
  END IF;
  INSERT INTO outbound_deliveries (channel, org_id, endpoint_id, recipient, message_id, event_type, payload, audit_event_id)
  SELECT 'webhook', e.org_id, e.id, e.display_url, 'msg_' || NEW.id::text || '_' || replace(e.id::text, '-', ''), event_type,
    jsonb_build_object(
      'type', event_type,
      'timestamp', to_char(NEW.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'data', jsonb_build_object(
        'event_id', NEW.id,
        'action', NEW.action,
        'organization_id', e.org_id,
        'actor', jsonb_build_object('type', NEW.actor_type, 'id', NEW.actor_id, 'label', NEW.actor_label),
        'subject', CASE WHEN NEW.subject_type IS NULL THEN NULL ELSE jsonb_build_object('type', NEW.subject_type, 'id', NEW.subject_id, 'label', NEW.subject_label) END,
        'app_id', NEW.app_id,
        'client_id', NEW.client_id,
        'act', NEW.act,
        'details', NEW.details)),
    NEW.id
  FROM webhook_endpoints e
  WHERE e.enabled
    AND (event_type = ANY (e.events) OR split_part(event_type, '.', 1) || '.*' = ANY (e.events) OR '*' = ANY (e.events))
    AND (e.org_id = NEW.org_id
      OR (NEW.org_id IS NULL AND NEW.subject_type = 'person'
        AND e.org_id IN (SELECT m.org_id FROM memberships m WHERE m.user_id::text = NEW.subject_id)));
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER audit_events_webhooks AFTER INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION portico_webhook_fan_out();
