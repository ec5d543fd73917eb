-- Time zones (issue 56, item 3): the one a person chose for their pages and mail, and an organization's for the mail
-- of people who chose none. Both IANA names, checked by the code (lib/i18n/time-zone.ts); null: the browser's / UTC.
ALTER TABLE "organizations" ADD COLUMN "default_time_zone" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "time_zone" text;