-- Custom migration (drizzle-kit generate --custom): archiving under the audit trail's append-only rule.
-- An event may now be deleted, and only when an archive segment already records it (audit_archive_segments, written
-- in the same transaction as the file's record, lib/audit/archive.ts). Every other DELETE, every UPDATE and
-- TRUNCATE are refused as before. A segment is accepted only where the archive can continue: it starts right after
-- the chain's last segment (or at #1), links to that segment's last hash, and its ends are events of the chain with
-- exactly the hashes it records. So only the oldest events of a chain, in order, can ever become deletable.
-- `audit verify` also reads the segments' files back and checks them as links of the chain.
-- The functions name their tables with the schema and fix their search_path: a temporary table of the same name
-- (pg_temp comes first in a search path) cannot stand in for the segments.
CREATE FUNCTION audit_archive_segments_continue() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
DECLARE
  previous public.audit_archive_segments%ROWTYPE;
  head public.audit_chain_heads%ROWTYPE;
BEGIN
  SELECT * INTO previous FROM public.audit_archive_segments s WHERE s.chain = NEW.chain ORDER BY s.from_seq DESC LIMIT 1;
  IF NEW.from_seq <> coalesce(previous.to_seq, 0) + 1 OR NEW.prev_hash <> coalesce(previous.last_hash, '') OR NEW.to_seq < NEW.from_seq THEN
    RAISE EXCEPTION 'audit archive segments continue the chain''s archive: this one does not' USING ERRCODE = 'insufficient_privilege';
  END IF;
  SELECT * INTO head FROM public.audit_chain_heads h WHERE h.chain = NEW.chain;
  IF head.chain IS NULL OR NEW.to_seq > head.last_seq
     OR NOT EXISTS (SELECT 1 FROM public.audit_events e WHERE coalesce(e.org_id::text, '') = NEW.chain AND e.chain_seq = NEW.from_seq AND e.prev_hash = NEW.prev_hash)
     OR NOT EXISTS (SELECT 1 FROM public.audit_events e WHERE coalesce(e.org_id::text, '') = NEW.chain AND e.chain_seq = NEW.to_seq AND e.hash = NEW.last_hash) THEN
    RAISE EXCEPTION 'an audit archive segment must begin and end at events of its chain with the hashes it records' USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER audit_archive_segments_continue BEFORE INSERT ON audit_archive_segments FOR EACH ROW EXECUTE FUNCTION audit_archive_segments_continue();
--> statement-breakpoint
-- The segment holding an event's place: the last one starting at or before it (one index probe, however many).
CREATE FUNCTION audit_events_delete_archived() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
DECLARE
  covering public.audit_archive_segments%ROWTYPE;
BEGIN
  SELECT * INTO covering FROM public.audit_archive_segments s
  WHERE s.chain = coalesce(OLD.org_id::text, '') AND s.from_seq <= OLD.chain_seq
  ORDER BY s.from_seq DESC LIMIT 1;
  IF covering.to_seq IS NOT NULL AND covering.to_seq >= OLD.chain_seq THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit events are append-only: only an archived event may be deleted' USING ERRCODE = 'insufficient_privilege';
END
$$;
--> statement-breakpoint
DROP TRIGGER audit_events_append_only ON audit_events;
--> statement-breakpoint
CREATE TRIGGER audit_events_append_only BEFORE UPDATE ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
--> statement-breakpoint
CREATE TRIGGER audit_events_delete_archived BEFORE DELETE ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_delete_archived();
--> statement-breakpoint
-- The segments are the archive's record: append-only too.
CREATE TRIGGER audit_archive_segments_append_only BEFORE UPDATE OR DELETE ON audit_archive_segments FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
--> statement-breakpoint
CREATE TRIGGER audit_archive_segments_no_truncate BEFORE TRUNCATE ON audit_archive_segments FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();
