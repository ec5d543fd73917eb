import { z } from 'zod';
import { searchAuditEvents } from '../../audit/events';
import { inOrganization, json, type PorticoTool, orgPermission } from '../context';

const shape = {
  org: z.string().min(1).max(64).describe('The organization slug.'),
  action: z.string().max(100).optional().describe('An action, or a prefix ending with "." such as "app.".'),
  actor: z.string().max(200).optional().describe('The actor’s exact id, or its whole email or name (ignoring case); never a part of one.'),
  limit: z.number().int().min(1).max(100).default(20),
};

export const auditSearch: PorticoTool<typeof shape> = {
  name: 'audit.search',
  description: "Searches an organization's audit log, newest first.",
  riskLevel: 'safe',
  inputSchema: shape,
  authorize: orgPermission('audit.read'),
  run: ({ org, action, actor, limit }, extra) =>
    inOrganization(extra, org, 'audit.read', async ({ tx, org: organization }) => {
      const page = await searchAuditEvents(tx, organization.id, { action, actor }, { limit });
      return json({
        events: page.events.map((event) => ({
          id: event.id,
          at: event.occurredAt.toISOString(),
          action: event.action,
          actor: event.actorLabel ?? event.actorId,
          act: event.act,
          subject: event.subjectLabel ?? event.subjectId,
          details: event.details,
        })),
      });
    }),
};
