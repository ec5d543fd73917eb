// What every door (console, CLI) does to reach an upstream and record it: read the upstream first, outside any
// transaction (an HTTP exchange), then run one organization operation that records what was read. A failed read
// is recorded as the server's status (for the console) and thrown as the gateway's refusal, in its own words.
import type { Database, Queryable } from '../db/client';
import { deliveryPolicy } from '../http/outbound';
import { runtime } from '../runtime';
import { runOrgOperation, type OrgOperationContext } from '../organizations/org-operation';
import { refusalOf } from '../refusals/refusal';
import { addGatewayServer, checkCredential, checkLimits, checkUpstreamUrl, DEFAULT_LIMITS, recordUpstreamStatus, recordUpstreamTools, upstreamTargetOf, type AddGatewayServerInput, type GatewayServer, type ToolsRead } from './servers';
import { isUnauthorized, readUpstreamTools, type UpstreamTarget } from './upstream';
import { atField, gatewayRefusal } from './refusal-codes';
import type { GatewayDoorDeps } from './upstream-oauth';

export type { GatewayDoorDeps };

/** This process's: the configured issuer, the at-rest key, and the deliveries' outbound policy (as webhooks). */
export function gatewayDoorDeps(): GatewayDoorDeps {
  const { env, atRestKey } = runtime();
  return { issuer: env.PORTICO_ISSUER, atRestKey, outboundPolicy: deliveryPolicy(env) };
}

type Scope = Parameters<typeof runOrgOperation>[1];

/** Adds a server after reading its tools: an address that cannot be read is refused next to its field. */
export async function addServerFromUpstream(
  db: Queryable,
  scope: Scope,
  input: Omit<AddGatewayServerInput, 'tools' | 'issuer' | 'atRestKey'>,
  deps: GatewayDoorDeps,
): Promise<{ server: GatewayServer; tools: number; skipped: number; oauth?: true }> {
  // Checked before any connection: a bad address or header is refused without reaching anything.
  const url = checkUpstreamUrl(input.url);
  const credential = input.credential ? checkCredential(input.credential.header, input.credential.value) : undefined;
  const limits = { ...DEFAULT_LIMITS, ...checkLimits(input.limits ?? {}) };
  const target: UpstreamTarget = { serverId: 'new', url, ...(credential ? { header: { name: credential.header, value: credential.value } } : {}), ...limits };
  let read;
  try {
    read = await readUpstreamTools(target, { policy: deps.outboundPolicy });
  } catch (error) {
    // An upstream that asks for OAuth (MCP authorization: a 401 with its resource metadata) is added as one each
    // person connects to with their own account; its tools are read once someone has.
    if (!credential && isUnauthorized(error)) {
      const server = await runOrgOperation(db, scope, { audit: 'exactly_one' }, (ctx) =>
        addGatewayServer(ctx, { ...input, url, oauth: true, limits, issuer: deps.issuer, atRestKey: deps.atRestKey, tools: [] }),
      );
      return { server, tools: 0, skipped: 0, oauth: true };
    }
    const refusal = refusalOf(error, 'gateway');
    // The upstream's failure is about the address the admin typed: said next to it.
    if (refusal) throw refusal.field ? refusal : atField(refusal, 'url');
    throw error;
  }
  const server = await runOrgOperation(db, scope, { audit: 'exactly_one' }, (ctx) =>
    addGatewayServer(ctx, { ...input, url, credential, limits, issuer: deps.issuer, atRestKey: deps.atRestKey, tools: read.tools }),
  );
  return { server, tools: read.tools.length, skipped: read.skipped };
}

/**
 * Reads the server's tools again and records what changed (new tools wait, changed ones are withheld, removed ones
 * go). Nothing changed writes nothing; a failed read records the server's status and is thrown.
 */
export async function refreshServerTools(db: Database, scope: Scope, server: GatewayServer, deps: GatewayDoorDeps): Promise<ToolsRead & { skipped: number }> {
  // An OAuth-protected server is read with the account of the person asking (an operator at the CLI has none).
  const person = 'person' in scope.actor ? { db, userId: scope.actor.person.id, issuer: deps.issuer } : undefined;
  if (server.credentialKind === 'oauth' && !person) throw gatewayRefusal('conflict', 'oauthNeedsPerson');
  let read;
  try {
    read = await readUpstreamTools(await upstreamTargetOf(server, deps.atRestKey, person), { policy: deps.outboundPolicy });
  } catch (error) {
    const refusal = refusalOf(error, 'gateway');
    if (refusal) await recordUpstreamStatus(db, server.id, refusal.code === 'upstream_invalid' ? 'invalid' : 'unreachable', refusal.code);
    throw error;
  }
  const changes = await runOrgOperation(db, scope, { audit: 'any' }, (ctx: OrgOperationContext) => recordUpstreamTools(ctx, server, read.tools));
  return { ...changes, skipped: read.skipped };
}
