import { listMembershipsOf } from '../../organizations/memberships';
import { json, type PorticoTool } from '../context';

export const whoami: PorticoTool = {
  name: 'whoami',
  description: 'The person this connection acts for, the agent acting for them (if any), and their organizations.',
  riskLevel: 'safe',
  run: async (_args, { caller, db }) => {
    const organizations = await listMembershipsOf(db, caller.user.id);
    return json({
      sub: caller.user.id,
      email: caller.user.email,
      name: caller.user.name,
      act: caller.agentId ?? null,
      client_id: caller.token.clientId,
      organizations: organizations.map((org) => ({ slug: org.slug, name: org.name, role: org.role })),
    });
  },
};
