-- Custom migration (drizzle-kit generate --custom): archiving under the audit trail's append-only rule.
-- An event may now be deleted, and only when an archive segment already records it (audit_archive_segments, written
-- in the same transaction as the file's record, lib/audit/archive.ts): its chain, a range holding its place, and
-- the hashes at both ends of that range. Every other DELETE, every UPDATE and TRUNCATE are refused as before.
-- `audit verify` reads the segments' files back and checks them as links of the chain, so archiving keeps the
-- tamper evidence: deleting events by forging a segment leaves a segment whose file is missing or does not chain.
CREATE FUNCTION audit_events_delete_archived() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM audit_archive_segments s
    WHERE s.chain = coalesce(OLD.org_id::text, '') AND s.from_seq <= OLD.chain_seq AND s.to_seq >= OLD.chain_seq
  ) THEN
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
