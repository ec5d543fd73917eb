-- Per-process read caches (lib/db/read-cache.ts) hear of every change to the rows they keep: after each changed
-- row, a notification on channel portico_cache names '<tag>:<key>' (delivered at commit, to every instance that
-- LISTENs). TG_ARGV[0] is the tag, TG_ARGV[1] the column holding the key.
CREATE FUNCTION portico_cache_notify() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  new_key text;
  old_key text;
BEGIN
  IF TG_OP <> 'DELETE' THEN
    new_key := to_jsonb(NEW) ->> TG_ARGV[1];
    PERFORM pg_notify('portico_cache', TG_ARGV[0] || ':' || new_key);
  END IF;
  IF TG_OP <> 'INSERT' THEN
    old_key := to_jsonb(OLD) ->> TG_ARGV[1];
    IF new_key IS DISTINCT FROM old_key THEN
      PERFORM pg_notify('portico_cache', TG_ARGV[0] || ':' || old_key);
    END IF;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER clients_cache_notify AFTER INSERT OR UPDATE OR DELETE ON clients FOR EACH ROW EXECUTE FUNCTION portico_cache_notify('clients', 'id');
--> statement-breakpoint
CREATE TRIGGER redirect_uris_cache_notify AFTER INSERT OR UPDATE OR DELETE ON redirect_uris FOR EACH ROW EXECUTE FUNCTION portico_cache_notify('clients', 'client_id');
--> statement-breakpoint
CREATE TRIGGER client_secrets_cache_notify AFTER INSERT OR UPDATE OR DELETE ON client_secrets FOR EACH ROW EXECUTE FUNCTION portico_cache_notify('clients', 'client_id');
--> statement-breakpoint
CREATE TRIGGER apps_cache_notify AFTER INSERT OR UPDATE OR DELETE ON apps FOR EACH ROW EXECUTE FUNCTION portico_cache_notify('apps', 'id');
--> statement-breakpoint
CREATE TRIGGER users_cache_notify AFTER INSERT OR UPDATE OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION portico_cache_notify('users', 'id');
--> statement-breakpoint
CREATE TRIGGER memberships_cache_notify AFTER INSERT OR UPDATE OR DELETE ON memberships FOR EACH ROW EXECUTE FUNCTION portico_cache_notify('users', 'user_id');
--> statement-breakpoint
-- TRUNCATE fires no row trigger: it empties every cache.
CREATE FUNCTION portico_cache_notify_all() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('portico_cache', '*');
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER clients_cache_truncate AFTER TRUNCATE ON clients FOR EACH STATEMENT EXECUTE FUNCTION portico_cache_notify_all();
--> statement-breakpoint
CREATE TRIGGER redirect_uris_cache_truncate AFTER TRUNCATE ON redirect_uris FOR EACH STATEMENT EXECUTE FUNCTION portico_cache_notify_all();
--> statement-breakpoint
CREATE TRIGGER client_secrets_cache_truncate AFTER TRUNCATE ON client_secrets FOR EACH STATEMENT EXECUTE FUNCTION portico_cache_notify_all();
--> statement-breakpoint
CREATE TRIGGER apps_cache_truncate AFTER TRUNCATE ON apps FOR EACH STATEMENT EXECUTE FUNCTION portico_cache_notify_all();
--> statement-breakpoint
CREATE TRIGGER users_cache_truncate AFTER TRUNCATE ON users FOR EACH STATEMENT EXECUTE FUNCTION portico_cache_notify_all();
--> statement-breakpoint
CREATE TRIGGER memberships_cache_truncate AFTER TRUNCATE ON memberships FOR EACH STATEMENT EXECUTE FUNCTION portico_cache_notify_all();
