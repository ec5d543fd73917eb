// POST /api/v1/orgs/<org>/apps/<app>/clients/<client>/revoke – revokes an MCP client at one app of the
// organization: no new authorization there, and its live grants and refresh tokens there end, together. A client
// that never reached this app (an external client of another app, say) is refused: revocation never crosses apps.
// Like the clients.revoke tool, it needs a human's confirmation first: 428 with a challenge, then the retry
// carries `_confirmation_token` in a JSON body.
import { findOrgApp } from '@/lib/clients/apps';
import { revokeClientAtAppCommand } from '@/lib/clients/client-commands';
import { ApiError, orgRoute } from '../../../../../../../_lib/rest';

export const dynamic = 'force-dynamic';

export const POST = orgRoute('clients.manage', async ({ tx, org, params, audit }) => {
  const app = await findOrgApp(tx, org.id, String(params.app ?? ''));
  if (!app) throw new ApiError(404, 'not_found', 'no such app in this organization');
  const clientId = String(params.client ?? '');
  const outcome = await revokeClientAtAppCommand({ tx, org, audit }, app, clientId);
  return Response.json({ revoked: true, client_id: clientId, app_id: app.app.id, grants_ended: outcome.grantsEnded });
}, { confirm: { tool: 'clients.revoke', args: (params) => ({ org: String(params.org), app: String(params.app), client_id: String(params.client) }) } });
