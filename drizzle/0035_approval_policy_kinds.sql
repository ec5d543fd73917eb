-- Requests made before approval policies get their kind (lib/approvals/policies.ts, policyKindOf): permanent, root,
-- protected (a broad path), then read or write by profile.
UPDATE approval_requests SET policy_kind = CASE
  WHEN duration_seconds IS NULL THEN 'permanent'
  WHEN kind = 'root_access' THEN 'root'
  WHEN resource = '/' OR resource LIKE '%*%' THEN 'protected'
  WHEN profile = 'read' THEN 'read'
  ELSE 'write'
END;
