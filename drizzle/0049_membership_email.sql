-- A membership carries its person's email, so that an organization's members are read in email order from an index
-- (org_id, email), a page at a time: the members page of a 50,000-person organization sorted all of them on every
-- view (docs/benchmarks.md, the scale bench). The database keeps the copy equal to users.email: it is set on every
-- insert, whatever the statement said, and follows every change of the person's email. The insert reads the person
-- FOR SHARE: a change of their email in flight is waited for (and then seen), and a change that comes after waits
-- for the new membership and then updates it too, so two transactions at once cannot leave the copy behind.
-- Edited by hand after drizzle-kit generate: the column is filled before it becomes NOT NULL, without one cache
-- notification per membership (nothing cached reads the email; one '*' empties the caches once).
ALTER TABLE "memberships" ADD COLUMN "email" text;
--> statement-breakpoint
ALTER TABLE "memberships" DISABLE TRIGGER memberships_cache_notify;
--> statement-breakpoint
UPDATE "memberships" m SET "email" = u."email" FROM "users" u WHERE u."id" = m."user_id";
--> statement-breakpoint
ALTER TABLE "memberships" ENABLE TRIGGER memberships_cache_notify;
--> statement-breakpoint
SELECT pg_notify('portico_cache', '*');
--> statement-breakpoint
ALTER TABLE "memberships" ALTER COLUMN "email" SET NOT NULL;
--> statement-breakpoint
CREATE INDEX "memberships_org_email_idx" ON "memberships" USING btree ("org_id","email");
--> statement-breakpoint
CREATE FUNCTION memberships_email_of_person() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
  SELECT u.email INTO NEW.email FROM public.users u WHERE u.id = NEW.user_id FOR SHARE;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER memberships_email_of_person BEFORE INSERT OR UPDATE OF user_id, email ON memberships FOR EACH ROW EXECUTE FUNCTION memberships_email_of_person();
--> statement-breakpoint
CREATE FUNCTION users_email_to_memberships() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
  UPDATE public.memberships m SET email = NEW.email WHERE m.user_id = NEW.id;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER users_email_to_memberships AFTER UPDATE OF email ON users FOR EACH ROW WHEN (OLD.email IS DISTINCT FROM NEW.email) EXECUTE FUNCTION users_email_to_memberships();
