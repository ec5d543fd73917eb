// The one kernel every organization operation runs through, whichever door it came in by (the console, the REST
// API, an MCP tool, a federated sign-in; the organization's directory through SCIM; an operator's CLI):
// organization → the person's role there → the role's permission → one transaction → its audit events, each with
// the same shape. A directory's token and the CLI's local authority are their own authorization (no role). The doors differ only in how they authenticate the person and how they answer a
// refusal; what an operation does and how it is recorded is decided once, here and in the domain commands
// (lib/organizations/agent-commands.ts, lib/clients/app-commands.ts).
import { localized } from '../i18n/catalogs';
import type { AuditRecord } from '../audit/events';
import { recordAuditEvent } from '../audit/events';
import type { Queryable } from '../db/client';
import { findMembershipRole } from './memberships';
import { findOrganizationBySlug, type MembershipRole, type Organization } from './organizations';
import { can, type OrgPermission } from './permissions';
import type { User } from '../accounts/users';
import { operationRefusal } from './refusal-codes';

/** Who runs the operation, and through which door. */
export type OperationActor = PersonActor | DirectoryActor | OperatorActor;

/** A person, signed in to the console, or calling with a token (REST, MCP), or signing in through a connection. */
export interface PersonActor {
  /** Who they are and how the audit shows them (a token's door reads no more of the account: ActingPerson). */
  person: Pick<User, 'id' | 'email'>;
  ip: string;
  door: 'console' | 'rest' | 'mcp' | 'federation';
  /** The agent acting for the person (RFC 8693 `act`), when a token says so. */
  agentId?: string | null;
  /** The OAuth client whose token carried the call (REST, MCP): recorded as where the call came from. */
  tokenClientId?: string | null;
}

/** The organization's directory, provisioning through SCIM with the organization's token. */
export interface DirectoryActor {
  door: 'scim';
  ip: string;
}

/** An operator on the server's machine (the CLI: its local authority, recorded as operator_cli). */
export interface OperatorActor {
  door: 'cli';
  operator: string;
}

/** The door an event says it came through: a federated sign-in's says `connection`, as its webhooks have always read. */
function viaOf(actor: OperationActor): string {
  return actor.door === 'federation' ? 'connection' : actor.door;
}

function auditActorOf(actor: OperationActor): AuditRecord['actor'] {
  switch (actor.door) {
    case 'scim':
      return { type: 'system', label: 'SCIM provisioning', ip: actor.ip };
    case 'cli':
      return { type: 'operator_cli', label: actor.operator };
    default:
      return { type: 'person', id: actor.person.id, label: actor.person.email, ip: actor.ip };
  }
}

export interface OrgOperationContext {
  tx: Queryable;
  org: Organization;
  /** The person's role; null for a door with an authority of its own (SCIM, the CLI). */
  role: MembershipRole | null;
  actor: OperationActor;
  /** The operation's audit event (one per operation), written as the person, in the organization. */
  audit(record: Omit<AuditRecord, 'orgId' | 'actor' | 'act'>): Promise<void>;
}

/** The organization and the person's role, if the role allows `permission`. */
export async function authorizeOrgOperation(db: Queryable, orgSlug: string, person: Pick<User, 'id'>, permission: OrgPermission): Promise<{ org: Organization; role: MembershipRole }> {
  const org = typeof orgSlug === 'string' && orgSlug !== '' ? await findOrganizationBySlug(db, orgSlug) : undefined;
  const role = org ? await findMembershipRole(db, org.id, person.id) : undefined;
  // An organization the person does not belong to is not revealed.
  if (!org || !role) throw operationRefusal('not_found', localized('refusals.operation.notFound'));
  if (!can(role, permission)) throw operationRefusal('forbidden', localized('refusals.operation.forbidden', { org: org.slug, role }));
  return { org, role };
}

export interface OrgOperationOptions {
  /**
   * A change writes exactly one audit event; a read writes none. `at_most_one` is for doors whose handlers answer
   * some refusals with a response instead of throwing (REST, MCP tools), where a refused change writes nothing.
   * `one_or_more` is SCIM's: a directory's change is recorded in provisioning's words (scim.user_deactivated) and, for
   * what it did to the organization, in the organization's (member.removed), which its webhooks hear. `any` is the
   * gateway's reading of an upstream's tools: one event per tool that changed, none when nothing did.
   */
  audit: 'exactly_one' | 'at_most_one' | 'one_or_more' | 'any' | 'none';
  /**
   * false for work that calls Portico over HTTP (a transaction held across it could wait on itself), or that runs
   * inside a transaction of its caller's (a federated sign-in's).
   */
  transaction?: boolean;
}

/** Runs an authorized operation: in one transaction, with its audit event in the shape every door shares. */
export async function runOrgOperation<T>(
  db: Queryable,
  scope: { org: Organization; role: MembershipRole | null; actor: OperationActor },
  options: OrgOperationOptions,
  work: (ctx: OrgOperationContext) => Promise<T>,
): Promise<T> {
  const { org, role, actor } = scope;
  const run = async (tx: Queryable) => {
    let events = 0;
    const result = await work({
      tx,
      org,
      role,
      actor,
      audit: async (record) => {
        events += 1;
        await recordAuditEvent(tx, {
          ...record,
          orgId: org.id,
          actor: auditActorOf(actor),
          act: 'person' in actor ? (actor.agentId ?? null) : null,
          // The client the operation is about (an app's, a revoked one), never the caller's: that goes in details.
          clientId: record.clientId ?? null,
          details: {
            ...record.details,
            via: viaOf(actor),
            ...('person' in actor && actor.tokenClientId ? { tokenClient: actor.tokenClientId, mode: actor.agentId ? 'delegated' : 'person' } : {}),
          },
        });
      },
    });
    const allowed = { exactly_one: events === 1, at_most_one: events <= 1, one_or_more: events >= 1, any: true, none: events === 0 }[options.audit];
    if (!allowed) throw new Error(`an organization operation wrote ${events} audit events (expected ${options.audit.replaceAll('_', ' ')})`);
    return result;
  };
  return options.transaction === false ? run(db) : db.transaction(run);
}
