import { z } from 'zod';
import { MAX_DURATION_SECONDS } from '../../approvals/broker';
import { requestThroughBroker } from '../approval-answer';
import { orgPermission, type PorticoTool } from '../context';

const shape = {
  org: z.string().min(1).max(64).describe('The organization slug.'),
  app: z.string().min(1).max(64).describe('The app’s id or slug.'),
  resource: z.string().min(1).max(512).describe('The protected resource, an absolute path such as /finance/2026.'),
  profile: z.enum(['read', 'work', 'compose']).describe('read: look only; work: change; compose: create.'),
  duration_seconds: z.number().int().min(60).max(MAX_DURATION_SECONDS).optional().describe('How long the access should last; omit for permanent (decided by the CLI only).'),
  reason: z.string().min(1).max(1000).describe('Why the access is needed, shown to the operator.'),
};

export const permissionsRequestSensitiveAccess: PorticoTool<typeof shape> = {
  name: 'permissions.request_sensitive_access',
  description: 'Asks an operator for access to one protected resource of an app, with a profile, for a bounded time. Answers at once with a request id; nothing is granted until an operator approves.',
  riskLevel: 'caution',
  inputSchema: shape,
  authorize: orgPermission('org.read'),
  run: (args, extra) => requestThroughBroker(extra, { org: args.org, app: args.app }, { kind: 'sensitive_access', resource: args.resource, profile: args.profile, durationSeconds: args.duration_seconds ?? null, reason: args.reason }),
};
