-- Custom migration (drizzle-kit generate --custom): a data change the schema DSL cannot say.
-- Before invitations, an admin who added a member with a new email created the account and was shown its password,
-- and `users create` printed (or took) a password chosen by the operator. Those people never chose their password:
-- mark their accounts so that the next sign-in makes them choose a new one. The audit trail is the evidence:
-- `member.added` with details.accountCreated = true (console), and `person.created` by the CLI.
UPDATE "users" SET "password_change_required" = true
WHERE "id"::text IN (
  SELECT "subject_id" FROM "audit_events"
  WHERE "subject_type" = 'person'
    AND (("action" = 'member.added' AND "details"->>'accountCreated' = 'true')
      OR ("action" = 'person.created' AND "actor_type" = 'operator_cli'))
);
