import { z } from 'zod';
import { revokeClientAtAppCommand } from '../../clients/client-commands';
import { appOfOrganization, inOrganization, json, type PorticoTool, orgPermission } from '../context';

const shape = {
  org: z.string().min(1).max(64).describe('The organization slug.'),
  app: z.string().min(1).max(64).describe('The app’s id or slug.'),
  client_id: z.string().min(1).max(2048).describe('The MCP client to revoke at that app.'),
};

export const clientsRevoke: PorticoTool<typeof shape> = {
  name: 'clients.revoke',
  description: 'Revokes an MCP client at one app: no new authorization there, and its grants and refresh tokens there end.',
  riskLevel: 'approval_required',
  warning: 'Everyone using this client with this app is cut off (access tokens already issued run out within 10 minutes); re-admitting it takes a new registration.',
  inputSchema: shape,
  authorize: orgPermission('clients.manage'),
  run: ({ org, app, client_id }, extra) =>
    inOrganization(extra, org, 'clients.manage', async ({ tx, org: organization, audit }) => {
      const listing = await appOfOrganization(tx, organization, app);
      const result = await revokeClientAtAppCommand({ tx, org: organization, audit }, listing, client_id);
      return json({ client_id, app: listing.app.name, grants_ended: result.grantsEnded });
    }),
};
