import { z } from 'zod';
import { credentialState, DEFAULT_OVERLAP_SECONDS, startRotation } from '../../clients/rotation';
import { appOfOrganization, inOrganization, json, ToolRefusal, type PorticoTool, orgPermission } from '../context';

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
      const state = await credentialState(tx, listing.clientId);
      if (!state) throw new ToolRefusal('This app’s client has no secret.');
      const result = await startRotation(tx, listing.clientId, state.generation, overlap_hours * 3600);
      if (!result.ok) throw new ToolRefusal(result.message);
      await audit({ action: 'app.secret_rotation_started', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, details: { generation: result.generation, overlapEndsAt: result.rotationEndsAt.toISOString() } });
      return json({ app: listing.app.name, client_secret: result.secret, generation: result.generation, old_secret_stops_at: result.rotationEndsAt.toISOString() });
    }),
};
