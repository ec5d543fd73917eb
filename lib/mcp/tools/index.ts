// Portico's MCP tools, one file each. Their levels come from exactly two places: each tool's declaration and the
// operator's PORTICO_RISK_OVERRIDES, which may raise a level and never lower one. The critical tools are
// approval_required by design: a configuration that would lower one stops Portico at start, naming the tool.
import { resolveRiskLevels, RiskConfigurationError, type RiskLevel } from '../../../app-kit/risk';
import type { AnyKitTool } from '../../../app-kit/tools';
import type { PorticoToolExtra } from '../context';
import { agentsGrant } from './agents-grant';
import { appsList } from './apps-list';
import { appsSetDevEnvironment } from './apps-set-dev-environment';
import { auditSearch } from './audit-search';
import { clientsList } from './clients-list';
import { clientsRevoke } from './clients-revoke';
import { clientsRotateSecret } from './clients-rotate-secret';
import { permissionsApprovalStatus } from './permissions-approval-status';
import { permissionsCancelApproval } from './permissions-cancel-approval';
import { permissionsRequestRootAccess } from './permissions-request-root-access';
import { permissionsRequestSensitiveAccess } from './permissions-request-sensitive-access';
import { whoami } from './whoami';

export const PORTICO_TOOLS = [
  whoami,
  appsList,
  clientsList,
  auditSearch,
  appsSetDevEnvironment,
  clientsRotateSecret,
  clientsRevoke,
  agentsGrant,
  permissionsRequestSensitiveAccess,
  permissionsRequestRootAccess,
  permissionsApprovalStatus,
  permissionsCancelApproval,
] as unknown as readonly AnyKitTool<PorticoToolExtra>[];

export const CRITICAL_TOOLS = ['clients.rotate_secret', 'clients.revoke', 'agents.grant'] as const;

/** `name=level` pairs separated by commas, as PORTICO_RISK_OVERRIDES holds them. */
export function parseRiskOverrides(value: string | undefined): Record<string, string> {
  const overrides: Record<string, string> = {};
  for (const pair of (value ?? '').split(',').map((part) => part.trim()).filter(Boolean)) {
    const [tool, level, extra] = pair.split('=').map((part) => part.trim());
    if (!tool || !level || extra !== undefined) throw new RiskConfigurationError(`PORTICO_RISK_OVERRIDES: "${pair}" is not tool=level.`, pair);
    overrides[tool] = level;
  }
  return overrides;
}

/** The effective level of every tool; throws RiskConfigurationError (naming the tool) for a lowering override. */
export function porticoRiskLevels(overrides: Readonly<Record<string, string>>): Record<string, RiskLevel> {
  return resolveRiskLevels(Object.fromEntries(PORTICO_TOOLS.map((tool) => [tool.name, tool.riskLevel])), overrides, CRITICAL_TOOLS);
}

export function findPorticoTool(name: string): AnyKitTool<PorticoToolExtra> | undefined {
  return PORTICO_TOOLS.find((tool) => tool.name === name);
}
