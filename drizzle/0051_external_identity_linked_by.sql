-- How each link between an account and a company identity provider's subject was made, so that a password reset by
-- mail can end the links that only a password made (the mailbox proves more than the password did).
-- Edited by hand after drizzle-kit generate: existing links are read from the audit log. A link whose making is not
-- found there (the event archived, or older than the log) counts as made by a password: the safe side, since ending
-- it only asks the person to prove their account once more at their next sign-in through the connection.
ALTER TABLE "external_identities" ADD COLUMN "linked_by" text DEFAULT 'sign_in' NOT NULL;
--> statement-breakpoint
UPDATE "external_identities" e SET "linked_by" = CASE
  WHEN EXISTS (
    SELECT 1 FROM "audit_events" a
    WHERE a."subject_id" = e."user_id"::text AND a."action" = 'identity.account_created' AND a."details"->>'connectionId' = e."connection_id"::text
  ) THEN 'sign_in'
  WHEN EXISTS (
    SELECT 1 FROM "audit_events" a
    WHERE a."subject_id" = e."user_id"::text AND a."action" = 'identity.account_linked' AND a."details"->>'how' = 'provisioned' AND a."details"->>'connectionId' = e."connection_id"::text
  ) THEN 'provisioned'
  ELSE 'password'
END;
