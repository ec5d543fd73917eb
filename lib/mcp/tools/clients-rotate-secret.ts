import { z } from 'zod';
import { startSecretRotation } from '../../clients/app-commands';
import { DEFAULT_OVERLAP_SECONDS } from '../../clients/rotation';
import { appOfOrganization, inOrganization, json, type PorticoTool, orgPermission } from '../context';

const shape = {
  org: z.string().min(1).max(64).describe('The organization slug.'),
  app: z.string().min(1).max(64).describe('The app’s id or slug.'),
  overlap_hours: z.number().int().min(1).max(720).default(DEFAULT_OVERLAP_SECONDS / 3600).describe('How long the old and the new secret both work.'),
};

export const clientsRotateSecret: PorticoTool<typeof shape> = {
  name: 'clients.rotate_secret',
  description: "Starts a rotation of an app's client secret: a new secret is issued (shown once, in this result) and the old one stops when the overlap ends.",
  riskLevel: 'approval_required',
  warning: "The app's current client secret stops working when the overlap ends: every instance of the app must get the new one first.",
  inputSchema: shape,
  authorize: orgPermission('apps.manage'),
  run: ({ org, app, overlap_hours }, extra) =>
    inOrganization(extra, org, 'apps.manage', async ({ tx, org: organization, audit }) => {
      const listing = await appOfOrganization(tx, organization, app);
      const result = await startSecretRotation({ tx, audit }, listing, { overlapSeconds: overlap_hours * 3600 });
      return json({ app: listing.app.name, client_secret: result.secret, generation: result.generation, old_secret_stops_at: result.rotationEndsAt.toISOString() });
    }),
};
