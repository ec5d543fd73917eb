import { z } from 'zod';
import { listOrgClients } from '../../clients/external';
import { inOrganization, json, type PorticoTool, orgPermission } from '../context';

const shape = { org: z.string().min(1).max(64).describe('The organization slug.') };

export const clientsList: PorticoTool<typeof shape> = {
  name: 'clients.list',
  description: "Lists the MCP clients that reach an organization's apps (external, dynamic and metadata-document clients).",
  riskLevel: 'safe',
  inputSchema: shape,
  authorize: orgPermission('clients.manage'),
  run: ({ org }, extra) =>
    inOrganization(extra, org, 'clients.manage', async ({ tx, org: organization }) =>
      json({
        clients: (await listOrgClients(tx, organization.id)).map((client) => ({
          client_id: client.clientId,
          kind: client.kind,
          name: client.name,
          app_id: client.app.id,
          app_name: client.app.name,
          revoked_at: client.revokedAt?.toISOString() ?? null,
        })),
      }),
    ),
};
