import { z } from 'zod';
import { AGENT_INPUTS, agentCommands } from '../../organizations/agent-commands';
import { appOfOrganization, inOrganization, json, type PorticoTool, orgPermission } from '../context';
import { toolRefusal } from '../refusal-codes';

const shape = {
  org: z.string().min(1).max(64).describe('The organization slug.'),
  agent: z.string().min(1).max(80).describe('The agent id (agt_…).'),
  app: z.string().min(1).max(64).describe('The app’s id or slug.'),
  scope: z.string().min(1).max(64).describe('The scope to grant on that app.'),
};

export const agentsGrant: PorticoTool<typeof shape> = {
  name: 'agents.grant',
  description: 'Grants an agent a scope on one app of the organization.',
  riskLevel: 'approval_required',
  warning: 'The agent can use the scope on its own from now on, until the grant is revoked.',
  inputSchema: shape,
  authorize: orgPermission('agents.manage'),
  run: ({ org, agent, app, scope }, extra) =>
    inOrganization(extra, org, 'agents.manage', async ({ tx, org: organization, audit }) => {
      const listing = await appOfOrganization(tx, organization, app);
      const input = AGENT_INPUTS.grant.safeParse({ agentId: agent, appId: listing.app.id, scope });
      if (!input.success) throw toolRefusal(input.error.issues.map((issue) => `${String(issue.path[0])}: ${issue.message}`).join('; '));
      // Its refusals are answered as every tool's (inOrganization).
      const outcome = await agentCommands.grant({ tx, org: organization, person: extra.caller.user, audit }, input.data);
      return json({ message: outcome.message });
    }),
};
