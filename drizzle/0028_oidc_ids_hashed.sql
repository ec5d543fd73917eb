-- Every oidc-provider model whose id is a bearer secret (all but Grant) is stored under the SHA-256 of its id,
-- base64url without padding, and without the id in its payload (lib/oidc/stored-ids.ts). Existing rows are converted
-- in place, so sessions, codes and tokens issued before keep working: the adapter hashes the value presented.
-- A refresh token's successor saved before this migration carries no sealed copy: a replay of its predecessor inside
-- the grace interval gets invalid_grant instead of the same successor (the client signs in again).
UPDATE "oidc_payloads" SET
  "id" = rtrim(translate(encode(sha256(convert_to("id", 'UTF8')), 'base64'), '+/', '-_'), '='),
  "rotated_from" = CASE WHEN "rotated_from" IS NULL THEN NULL
    ELSE rtrim(translate(encode(sha256(convert_to("rotated_from", 'UTF8')), 'base64'), '+/', '-_'), '=') END,
  "payload" = "payload" - 'jti'
WHERE "kind" <> 'Grant';
