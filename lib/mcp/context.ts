// What Portico's tools run with: the authenticated caller (person, acting agent, token) and the database. Tools
// that touch an organization go through inOrganization: membership, the role's permission, one transaction, and
// the change's audit event written as the person with the agent as `act`, exactly like the REST API.
import { authorizeOrgOperation, runOrgOperation } from '../organizations/org-operation';
import type { NotifyDeps } from '../notifications/notify';
import type { MembershipRole, Organization } from '../organizations/organizations';
import type { OrgPermission } from '../organizations/permissions';
import type { ApiCaller } from './authenticate';
import type { AuditActor, AuditRecord } from '../audit/events';
import { findOrgApp, listApps } from '../clients/apps';
import type { Database, Queryable } from '../db/client';
import { textIn } from '../i18n/catalogs';
import { localeOfUser } from '../i18n/recipient';
import type { Elicit } from './elicitation';
import type { KitTool } from '../../app-kit/tools';
import type { ServerContext } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { Refusal } from '../refusals/refusal';
import { toolRefusal } from './refusal-codes';

export interface PorticoToolExtra {
  caller: ApiCaller;
  db: Database;
  ip: string;
  issuer: string;
  /**
   * What the client declared it can show (none over REST): from its 2025-11-25 session's `initialize`, or from the
   * 2026-07-28 request's own `_meta`. It chooses the approval surface (lib/approvals/channel.ts).
   */
  clientCapabilities?: unknown;
  /** How approvals reach operators (the configuration the channel is chosen from). */
  approvals: ApprovalSurfaceConfig;
  /** Elicitation on this call's response stream; only over MCP, in adaptive mode, for a client that advertised it. */
  elicit?: Elicit;
  /**
   * The language of the person the call is for (subjectLocale): what the agent relays to them — approval texts,
   * elicitations, refusals of the broker — is in it. Codes and fields stay as they are.
   */
  locale(): Promise<string>;
  /** Mail to the people who decide what the call asks for (none: nobody is mailed). */
  notify?: NotifyDeps;
  /**
   * 2026-07-28 only: access requests shown as an input request (the central's page, or the form that keeps or
   * withdraws the request) and answered by the client's retry, which carries this signed state.
   */
  approvalRounds?: ApprovalRounds;
}

/** What an access request's input round carries back (signed, bound to the caller): which request, shown how. */
export interface ApprovalRoundState {
  kind: 'approval';
  /** What the tool that asked asks for (sensitive or root access): the state answers only a retry of that tool. */
  asks: string;
  requestId: string;
  mode: 'url' | 'form';
}

export interface ApprovalRounds {
  mint(state: ApprovalRoundState, context: ServerContext): Promise<string>;
}

/** The caller's language, looked up once and only when a text needs it (lib/i18n/recipient.ts: their choice, else their first organization's default, else English). */
export function subjectLocale(db: Queryable, caller: Pick<ApiCaller, 'user'>): () => Promise<string> {
  let found: Promise<string> | undefined;
  return () => (found ??= localeOfUser(db, caller.user));
}

export interface ApprovalSurfaceConfig {
  surface: 'link' | 'adaptive';
  centralEnabled: boolean;
  /** PORTICO_OPERATOR_FRAME_ANCESTORS: when empty the embedded central is not offered. */
  frameAncestors: readonly string[];
}

export const DEFAULT_APPROVAL_SURFACES: ApprovalSurfaceConfig = { surface: 'link', centralEnabled: true, frameAncestors: [] };

export type PorticoTool<Shape extends z.ZodRawShape = z.ZodRawShape> = KitTool<Shape, PorticoToolExtra>;

/**
 * The MCP door's one answer to a refusal, thrown as the tool's error text (the kit's runner shows a refusal's words as
 * they are, never a stack trace). Authorizing the organization the caller named (`orgSlug`): one the person does not
 * belong to is not revealed, a role that does not allow the operation is said as a sentence; the broker's refusals are in
 * the caller's language (`locale`); every other refusal in its English words. Anything else is thrown on.
 */
export async function toolAnswer(error: unknown, context: { orgSlug?: string; locale?: () => Promise<string> } = {}): Promise<never> {
  if (!(error instanceof Refusal)) throw error;
  if (error.domain === 'operation' && context.orgSlug !== undefined) {
    throw toolRefusal(error.code === 'not_found' ? `No organization "${context.orgSlug}" that you belong to.` : `${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}.`);
  }
  if (error.domain === 'approvals' && error.text && context.locale) throw toolRefusal(textIn(error.text, await context.locale()));
  throw toolRefusal(error.message);
}

export interface OrgScope {
  tx: Queryable;
  org: Organization;
  role: MembershipRole;
  audit(record: Omit<AuditRecord, 'orgId' | 'actor' | 'act'>): Promise<void>;
}

/** The organization and the person's role there, if that role allows `permission`; a refusal otherwise. */
export async function requireOrgPermission(extra: Pick<PorticoToolExtra, 'caller' | 'db'>, orgSlug: string, permission: OrgPermission): Promise<{ org: Organization; role: MembershipRole }> {
  try {
    return await authorizeOrgOperation(extra.db, orgSlug, extra.caller.user, permission);
  } catch (error) {
    return toolAnswer(error, { orgSlug });
  }
}

/**
 * The tool's `authorize` (checked before the confirmation gate, so a person who may not act gets a refusal, not a
 * challenge) and its run (checked again, inside the transaction that does the work).
 */
export function orgPermission(permission: OrgPermission) {
  return async (args: { org: string }, extra: PorticoToolExtra): Promise<void> => {
    await requireOrgPermission(extra, args.org, permission);
  };
}

/** Runs a tool's work as an organization operation (lib/organizations/org-operation.ts), like the console and REST do. */
export async function inOrganization<T>(extra: PorticoToolExtra, orgSlug: string, permission: OrgPermission, work: (scope: OrgScope) => Promise<T>): Promise<T> {
  const { caller } = extra;
  const { org, role } = await requireOrgPermission(extra, orgSlug, permission);
  const actor = { person: caller.user, ip: extra.ip, door: 'mcp' as const, agentId: caller.agentId ?? null, tokenClientId: caller.token.clientId };
  try {
    return await runOrgOperation(extra.db, { org, role, actor }, { audit: 'at_most_one' }, ({ tx, audit }) => work({ tx, org, role, audit }));
  } catch (error) {
    return toolAnswer(error);
  }
}

export const json = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> });

/** An app of the organization, named by its id or its slug. */
export async function appOfOrganization(tx: Queryable, org: Organization, reference: string) {
  const listing = (await findOrgApp(tx, org.id, reference)) ?? (await listApps(tx, org.slug)).find((row) => row.app.slug === reference);
  if (!listing) throw toolRefusal(`${org.slug} has no app "${reference}".`);
  return listing;
}

/**
 * Runs an approval-broker step as the caller (the person; the broker records the agent as `act`); the broker's
 * refusals (queue full, not pending, …) become the tool's error text.
 */
export async function brokerStep<T>(extra: PorticoToolExtra, work: (actor: AuditActor) => Promise<T>): Promise<T> {
  try {
    return await work({ type: 'person', id: extra.caller.user.id, label: extra.caller.user.email, ip: extra.ip });
  } catch (error) {
    return toolAnswer(error, { locale: extra.locale });
  }
}
