// GET /api/v1/orgs/<org>/apps/<app>/effective-permissions?subject=<email | person id | agent id> – what a person or
// an agent may do in the app, each permission with its sources ("team Finance", "direct", "baseline",
// "delegated from ada@…"). Read-only; for whoever may read the organization's members.
import { describeSource, explainPermissions } from '@/lib/organizations/effective-permissions';
import { findOrgApp } from '@/lib/clients/apps';
import { ApiError, orgRoute } from '../../../../../_lib/rest';

export const dynamic = 'force-dynamic';

export const GET = orgRoute('members.read', async ({ tx, org, params, url }) => {
  const app = await findOrgApp(tx, org.id, String(params.app ?? ''));
  if (!app) throw new ApiError(404, 'not_found', 'no such app in this organization');
  const subject = url.searchParams.get('subject') ?? '';
  if (subject === '' || subject.length > 320) throw new ApiError(400, 'invalid_request', 'name the subject: ?subject=<email, person id or agent id>');
  const explanation = await explainPermissions(tx, { orgId: org.id, appId: app.app.id, subject });
  // A subject outside the organization is not revealed.
  if (!explanation) throw new ApiError(404, 'not_found', 'no such person or agent in this organization');
  return Response.json(
    {
      app_id: app.app.id,
      subject: explanation.subject,
      permissions: explanation.permissions.map((permission) => ({ scope: permission.scope, description: permission.description, sources: permission.sources.map(describeSource) })),
    },
    { headers: { 'Cache-Control': 'no-store' } },
  );
});
