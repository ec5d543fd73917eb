-- Custom migration (drizzle-kit generate --custom): what the schema DSL cannot say. The audit trail's hash chain
-- and its append-only rule live in the database, so that no code path (and no second instance) can skip them.
--
-- audit_event_hash(e): SHA-256 (hex) of a canonical JSON array of the event's content, its place in the chain and
-- the previous event's hash. jsonb's text form is deterministic; the time is in microseconds since the epoch, so
-- the session's time zone does not matter. Version 1 of the format is the array's first element.
CREATE FUNCTION audit_event_hash(e audit_events) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT encode(sha256(convert_to(jsonb_build_array(
    1, e.prev_hash, e.chain_seq, coalesce(e.org_id::text, ''), (extract(epoch from e.occurred_at) * 1000000)::bigint,
    e.actor_type::text, e.actor_id, e.actor_label, e.action, e.subject_type, e.subject_id, e.subject_label,
    e.app_id::text, e.client_id, e.act, e.ip, e.details
  )::text, 'UTF8')), 'hex')
$$;
--> statement-breakpoint
-- Each new event takes the next place in its chain. The head row is locked until the transaction ends, so events
-- of one organization are chained one at a time, by every instance alike.
CREATE FUNCTION audit_events_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  chain_key text := coalesce(NEW.org_id::text, '');
  head audit_chain_heads%ROWTYPE;
BEGIN
  INSERT INTO audit_chain_heads (chain, last_seq, last_hash) VALUES (chain_key, 0, '') ON CONFLICT (chain) DO NOTHING;
  SELECT * INTO head FROM audit_chain_heads WHERE chain = chain_key FOR UPDATE;
  NEW.chain_seq := head.last_seq + 1;
  NEW.prev_hash := head.last_hash;
  NEW.hash := audit_event_hash(NEW);
  UPDATE audit_chain_heads SET last_seq = NEW.chain_seq, last_hash = NEW.hash WHERE chain = chain_key;
  RETURN NEW;
END
$$;
--> statement-breakpoint
-- Events written before this migration join their chains in the order they were written.
DO $$
DECLARE
  event audit_events%ROWTYPE;
  head audit_chain_heads%ROWTYPE;
BEGIN
  FOR event IN SELECT * FROM audit_events ORDER BY id LOOP
    INSERT INTO audit_chain_heads (chain, last_seq, last_hash) VALUES (coalesce(event.org_id::text, ''), 0, '') ON CONFLICT (chain) DO NOTHING;
    SELECT * INTO head FROM audit_chain_heads WHERE chain = coalesce(event.org_id::text, '');
    event.chain_seq := head.last_seq + 1;
    event.prev_hash := head.last_hash;
    event.hash := audit_event_hash(event);
    UPDATE audit_events SET chain_seq = event.chain_seq, prev_hash = event.prev_hash, hash = event.hash WHERE id = event.id;
    UPDATE audit_chain_heads SET last_seq = event.chain_seq, last_hash = event.hash WHERE chain = coalesce(event.org_id::text, '');
  END LOOP;
END
$$;
--> statement-breakpoint
CREATE UNIQUE INDEX audit_events_chain_seq_idx ON audit_events ((coalesce(org_id::text, '')), chain_seq);
--> statement-breakpoint
CREATE TRIGGER audit_events_chain BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_chain();
--> statement-breakpoint
-- Append-only: the application never edits or removes an event, and neither can anyone else without first
-- disabling this trigger (which needs the table's owner, and which `audit verify` would then reveal).
CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit events are append-only: % is not allowed', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
--> statement-breakpoint
CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
--> statement-breakpoint
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();
--> statement-breakpoint
-- The heads only move forward, through the chaining trigger; nothing removes them.
CREATE TRIGGER audit_chain_heads_no_delete BEFORE DELETE ON audit_chain_heads FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
--> statement-breakpoint
-- A head moves one link at a time (what the chaining trigger does), never back.
CREATE FUNCTION audit_chain_heads_forward() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.chain <> OLD.chain OR NEW.last_seq <> OLD.last_seq + 1 THEN
    RAISE EXCEPTION 'audit chain heads only move forward, one event at a time' USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER audit_chain_heads_forward BEFORE UPDATE ON audit_chain_heads FOR EACH ROW EXECUTE FUNCTION audit_chain_heads_forward();
