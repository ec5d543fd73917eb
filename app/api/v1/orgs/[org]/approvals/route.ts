// GET /api/v1/orgs/<org>/approvals – the organization's latest approval requests, their decisions and grants.
import { listOrgApprovals } from '@/lib/approvals/broker';
import { orgRoute } from '@/app/api/v1/_lib/rest';

export const dynamic = 'force-dynamic';

export const GET = orgRoute('org.read', async ({ tx, org, caller }) => {
  // The requests of the apps this person decides for (designated operators, or owners when none are).
  const entries = await listOrgApprovals(tx, org.id, caller.user.id);
  return Response.json({
    approvals: entries.map(({ request, askedBy, app, grant, active }) => ({
      request_id: request.id,
      state: request.state,
      expired: request.state === 'pending' && request.expiresAt <= new Date(),
      asked_by: askedBy,
      act: request.actor || null,
      app_id: request.appId,
      app_name: app,
      kind: request.kind,
      resource: request.resource,
      profile: request.profile,
      duration_seconds: request.durationSeconds,
      reason: request.reason,
      created_at: request.createdAt.toISOString(),
      decided_at: request.decidedAt?.toISOString() ?? null,
      grant: grant ? { grant_id: grant.id, active, expires_at: grant.expiresAt?.toISOString() ?? null, revoked_at: grant.revokedAt?.toISOString() ?? null } : null,
    })),
  });
});
