// /api/v1/orgs/<org>/clients – the organization's external MCP clients (and the dynamic and CIMD clients that
// reached its apps): list them, or register an external client for one app.
import { registerExternalClient } from '@/lib/clients/client-commands';
import { listOrgClients } from '@/lib/clients/external';
import { findOrgApp } from '@/lib/clients/apps';
import { ApiError, orgRoute } from '../../../_lib/rest';

export const dynamic = 'force-dynamic';

export const GET = orgRoute('clients.manage', async ({ tx, org }) => {
  const listed = await listOrgClients(tx, org.id);
  return Response.json({
    clients: listed.map((client) => ({
      client_id: client.clientId,
      kind: client.kind,
      name: client.name,
      app_id: client.app.id,
      app_name: client.app.name,
      redirect_uris: client.redirectUris,
      linked_at: client.linkedAt.toISOString(),
      revoked_at: client.revokedAt?.toISOString() ?? null,
      consents: client.consents,
    })),
  });
});

export const POST = orgRoute('clients.manage', async ({ tx, org, body, audit }) => {
  const input = await body();
  if (typeof input.app_id !== 'string') throw new ApiError(400, 'invalid_request', 'app_id is required');
  const app = await findOrgApp(tx, org.id, input.app_id);
  if (!app) throw new ApiError(404, 'not_found', 'no such app in this organization');
  // RFC 7591 §3.2.2: a refusal's code names what is wrong (invalid_redirect_uri, invalid_client_metadata).
  const valid = await registerExternalClient({ tx, org, audit }, app, { label: input.label, redirectUris: input.redirect_uris });
  const { clientId } = valid;
  return Response.json(
    { client_id: clientId, client_name: valid.label, app_id: app.app.id, redirect_uris: valid.redirectUris, token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] },
    { status: 201, headers: { 'Cache-Control': 'no-store' } },
  );
});
