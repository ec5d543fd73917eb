// The audit of Portico's gated tools, whichever door the call came through (MCP, REST): from `caution` up, the
// challenge issued, the successful run and the failed run.
import type { ToolEvent } from '../../app-kit/tools';
import { findMembershipRole } from '../organizations/memberships';
import { findOrganizationBySlug } from '../organizations/organizations';
import type { ApiCaller } from './authenticate';
import { recordAuditEvent } from '../audit/events';
import type { Database } from '../db/client';

/**
 * Audit from caution up (challenge issued, successful run, failed run), in the organization the call names when
 * the person belongs to it; otherwise as an installation-level event.
 */
export function auditToolEvent(db: Database, clientIp: string, caller: ApiCaller): (event: ToolEvent) => Promise<void> {
  return async (event) => {
    const slug = typeof event.arguments.org === 'string' ? event.arguments.org : undefined;
    const org = slug ? await findOrganizationBySlug(db, slug) : undefined;
    const member = org ? await findMembershipRole(db, org.id, caller.user.id) : undefined;
    await recordAuditEvent(db, {
      orgId: org && member ? org.id : null,
      actor: { type: 'person', id: caller.user.id, label: caller.user.email, ip: clientIp },
      act: event.actor ?? null,
      clientId: event.clientId,
      action: `mcp.tool_${event.outcome}`,
      subject: { type: 'tool', id: event.tool },
      details: { tool: event.tool, riskLevel: event.riskLevel, outcome: event.outcome, arguments: event.arguments, ...(event.error ? { error: event.error } : {}) },
    });
  };
}
