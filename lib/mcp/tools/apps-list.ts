import { z } from 'zod';
import { listApps } from '../../clients/apps';
import { inOrganization, json, type PorticoTool, orgPermission } from '../context';

const shape = { org: z.string().min(1).max(64).describe('The organization slug.') };

export const appsList: PorticoTool<typeof shape> = {
  name: 'apps.list',
  description: "Lists an organization's apps: name, id, origin, client id and whether the dev environment is on.",
  riskLevel: 'safe',
  inputSchema: shape,
  authorize: orgPermission('apps.read'),
  run: ({ org }, extra) =>
    inOrganization(extra, org, 'apps.read', async ({ tx, org: organization }) =>
      json({
        apps: (await listApps(tx, organization.slug)).map(({ app, clientId }) => ({
          id: app.id,
          slug: app.slug,
          name: app.name,
          origin: app.publishOrigin,
          client_id: clientId,
          dev_environment_until: app.devEnvironmentUntil?.toISOString() ?? null,
        })),
      }),
    ),
};
