import { z } from 'zod';
import { setAppDevEnvironment } from '../../clients/app-commands';
import { appOfOrganization, inOrganization, json, type PorticoTool, orgPermission } from '../context';

const shape = {
  org: z.string().min(1).max(64).describe('The organization slug.'),
  app: z.string().min(1).max(64).describe('The app’s id or slug.'),
  hours: z.number().int().min(0).max(720).describe('How long dev-only redirect URIs are accepted; 0 turns the dev environment off.'),
};

export const appsSetDevEnvironment: PorticoTool<typeof shape> = {
  name: 'apps.set_dev_environment',
  description: "Turns an app's dev environment on for some hours (dev-only redirect URIs accepted) or off.",
  riskLevel: 'caution',
  inputSchema: shape,
  authorize: orgPermission('apps.manage'),
  run: ({ org, app, hours }, extra) =>
    inOrganization(extra, org, 'apps.manage', async ({ tx, org: organization, audit }) => {
      const listing = await appOfOrganization(tx, organization, app);
      const until = await setAppDevEnvironment({ tx, audit }, listing, hours);
      return json({ app: listing.app.name, dev_environment_until: until?.toISOString() ?? null });
    }),
};
