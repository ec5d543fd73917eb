import { z } from 'zod';
import { MAX_DURATION_SECONDS } from '../../approvals/broker';
import { requestThroughBroker } from '../approval-answer';
import { orgPermission, type PorticoTool } from '../context';

const shape = {
  org: z.string().min(1).max(64).describe('The organization slug.'),
  app: z.string().min(1).max(64).describe('The app (installation) id or slug.'),
  duration_seconds: z.number().int().min(60).max(MAX_DURATION_SECONDS).optional().describe('How long the elevated access should last; omit for permanent.'),
  reason: z.string().min(1).max(1000).describe('Why elevated access is needed, shown to the operator.'),
};

export const permissionsRequestRootAccess: PorticoTool<typeof shape> = {
  name: 'permissions.request_root_access',
  description: 'Asks an operator for elevated access on one app (installation) for a bounded time. Elevated requests are decided with the operator CLI only. Answers at once with a request id.',
  riskLevel: 'caution',
  inputSchema: shape,
  authorize: orgPermission('org.read'),
  run: (args, extra) => requestThroughBroker(extra, { org: args.org, app: args.app }, { kind: 'root_access', durationSeconds: args.duration_seconds ?? null, reason: args.reason }),
};
