-- An app's permission catalog (its admins' rows and its declared surface) joins the per-process read cache
-- (lib/db/read-cache.ts): every change, by any instance, notifies the app's tag at commit, so the catalog a token
-- request or a decision reads is dropped the moment it changes. The AuthZEN decision point and every token
-- request for an app read it.
CREATE TRIGGER app_permissions_cache_notify AFTER INSERT OR UPDATE OR DELETE ON app_permissions FOR EACH ROW EXECUTE FUNCTION portico_cache_notify('apps', 'app_id');
--> statement-breakpoint
CREATE TRIGGER app_surfaces_cache_notify AFTER INSERT OR UPDATE OR DELETE ON app_surfaces FOR EACH ROW EXECUTE FUNCTION portico_cache_notify('apps', 'app_id');
--> statement-breakpoint
CREATE TRIGGER app_permissions_cache_truncate AFTER TRUNCATE ON app_permissions FOR EACH STATEMENT EXECUTE FUNCTION portico_cache_notify_all();
--> statement-breakpoint
CREATE TRIGGER app_surfaces_cache_truncate AFTER TRUNCATE ON app_surfaces FOR EACH STATEMENT EXECUTE FUNCTION portico_cache_notify_all();
