-- One canonical form of an address everywhere (lib/util/email.ts): lower case, and the domain without the trailing
-- dot of a fully qualified name, so that `ada@example.com.` and `ada@example.com` are one address. Stored addresses
-- were already lower case (CHECK constraints); what could differ is a trailing dot. Written by hand (drizzle-kit
-- generate --custom). What it does, each recorded in the installation's audit log (organization: none):
-- - an account whose address ends with such a dot takes the address without it (`account.email_canonicalized`),
--   unless another account has that address already: then neither changes (`account.email_look_alike`, naming both),
--   and an operator decides which is the person's (docs/accounts.md);
-- - an open invitation's address loses the dot too, unless that organization has an open invitation for the address
--   without it (the look-alike invitation stays; it ends as any invitation does).
-- Internationalized domains stored in Unicode are not rewritten here (no installation is known to have any: the
-- console and SCIM refused such addresses until now); the code compares them in their ASCII form from now on.
INSERT INTO "audit_events" ("org_id", "actor_type", "actor_label", "action", "subject_type", "subject_id", "subject_label", "details")
SELECT NULL, 'system', 'migration 0052', 'account.email_look_alike', 'person', u."id"::text, u."email",
       jsonb_build_object('canonical', regexp_replace(u."email", '\.+$', ''), 'otherAccount', o."id"::text)
FROM "users" u JOIN "users" o ON o."email" = regexp_replace(u."email", '\.+$', '')
WHERE u."email" ~ '\.$';
--> statement-breakpoint
INSERT INTO "audit_events" ("org_id", "actor_type", "actor_label", "action", "subject_type", "subject_id", "subject_label", "details")
SELECT NULL, 'system', 'migration 0052', 'account.email_canonicalized', 'person', u."id"::text, regexp_replace(u."email", '\.+$', ''),
       jsonb_build_object('from', u."email", 'to', regexp_replace(u."email", '\.+$', ''))
FROM "users" u
WHERE u."email" ~ '\.$' AND NOT EXISTS (SELECT 1 FROM "users" o WHERE o."email" = regexp_replace(u."email", '\.+$', ''));
--> statement-breakpoint
UPDATE "users" u SET "email" = regexp_replace(u."email", '\.+$', '')
WHERE u."email" ~ '\.$' AND NOT EXISTS (SELECT 1 FROM "users" o WHERE o."email" = regexp_replace(u."email", '\.+$', ''));
--> statement-breakpoint
UPDATE "invitations" i SET "email" = regexp_replace(i."email", '\.+$', '')
WHERE i."email" ~ '\.$' AND i."accepted_at" IS NULL AND i."revoked_at" IS NULL
  AND NOT EXISTS (
    SELECT 1 FROM "invitations" o
    WHERE o."org_id" = i."org_id" AND o."email" = regexp_replace(i."email", '\.+$', '') AND o."accepted_at" IS NULL AND o."revoked_at" IS NULL
  );
