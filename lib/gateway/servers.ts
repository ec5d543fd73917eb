// An organization's upstream MCP servers and their tools, once for every door (console, CLI): the caller has
// authorized `apps.manage` through the organization-operation kernel, which gives the transaction and the audit.
// Reading an upstream's tools is an HTTP exchange, made before the operation (a transaction is never held across
// it); the operation then records what was read: new tools wait, changed ones are withheld, removed ones go.
import { randomUUID } from 'node:crypto';
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { appSurfaces, apps, gatewayServers, gatewayTools } from '../db/schema';
import type { OrgOperationContext } from '../organizations/org-operation';
import { RISK_LEVELS, type RiskLevel } from '../../app-kit/risk';
import { normalizeSurface } from '../../app-kit/surface';
import { recordDeclaration } from '../clients/surface';
import { BASELINE_SCOPE, SCOPE_TOKEN } from '../clients/permission-catalog';
import { deleteApp, setAppDisabled } from '../clients/apps';
import { validateSlug } from '../clients/validation';
import { decryptAtRest, encryptAtRest } from '../security/at-rest';
import { slugFromName } from '../util/slug';
import { definitionChanges, definitionDigest, proposedLevelOf, type ToolDefinition } from './definitions';
import { gatewayRefusal } from './refusal-codes';
import { forgetUpstream, type UpstreamTarget } from './upstream';
import { GATEWAY_CONNECT_PATH, isConnected, UpstreamOAuthClient } from './upstream-oauth';

export type GatewayServer = typeof gatewayServers.$inferSelect;
export type GatewayToolRow = typeof gatewayTools.$inferSelect;
type Context = Pick<OrgOperationContext, 'tx' | 'org' | 'audit' | 'actor'>;

/** The surface declaration's contract version for a gateway server's tools (the kit's own start at 1). */
const GATEWAY_DECLARATION_VERSION = 1;

/** Where a server is served: `<issuer>/mcp/<org>/<server>`, its RFC 8707 resource identifier. */
export function gatewayResource(issuer: string, orgSlug: string, serverSlug: string): string {
  return `${issuer}/mcp/${orgSlug}/${serverSlug}`;
}

/** The path of a gateway resource (`/mcp/<org>/<server>`), or undefined. */
export const GATEWAY_PATH = /^\/mcp\/([a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)\/([a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)$/;

/** A tool's state for an admin: waiting for a first approval, approved (offered), changed since (withheld), removed. */
export type GatewayToolState = 'pending' | 'approved' | 'changed' | 'removed';

export function toolStateOf(tool: Pick<GatewayToolRow, 'approvedDigest' | 'offeredDigest' | 'removedAt'>): GatewayToolState {
  if (tool.removedAt) return 'removed';
  if (!tool.approvedDigest) return 'pending';
  return tool.approvedDigest === tool.offeredDigest ? 'approved' : 'changed';
}

/** An upstream URL: http or https, no credentials or fragment in it (a credential belongs in the sealed header). */
export function checkUpstreamUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw gatewayRefusal('invalid', 'url', {}, 'url');
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || url.hash) throw gatewayRefusal('invalid', 'url', {}, 'url');
  return url.href;
}

/** RFC 9110 §5.1 field names; the header must not be one the transport or MCP itself sets. */
const RESERVED_HEADERS = new Set(['host', 'content-type', 'content-length', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id', 'connection', 'transfer-encoding']);
export function checkCredential(header: string, value: string): { header: string; value: string } {
  const name = header.trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/.test(name) || RESERVED_HEADERS.has(name.toLowerCase())) throw gatewayRefusal('invalid', 'credentialHeader', {}, 'credentialHeader');
  if (value.length < 1 || value.length > 4096 || /[\r\n\0]/.test(value)) throw gatewayRefusal('invalid', 'credentialValue', {}, 'credentialValue');
  return { header: name, value };
}

export interface GatewayLimits {
  timeoutMs: number;
  maxResponseBytes: number;
  maxConcurrentCalls: number;
}

/** A server's limits unless an admin sets others (the columns' defaults). */
export const DEFAULT_LIMITS: GatewayLimits = { timeoutMs: 30_000, maxResponseBytes: 1_048_576, maxConcurrentCalls: 8 };

export const LIMIT_RANGES = {
  timeoutMs: { min: 1_000, max: 120_000 },
  maxResponseBytes: { min: 1_024, max: 16 * 1_048_576 },
  maxConcurrentCalls: { min: 1, max: 256 },
} as const;

export function checkLimits(limits: Partial<GatewayLimits>): Partial<GatewayLimits> {
  for (const [name, value] of Object.entries(limits) as [keyof GatewayLimits, number | undefined][]) {
    if (value === undefined) continue;
    const range = LIMIT_RANGES[name];
    if (!Number.isInteger(value) || value < range.min || value > range.max) throw gatewayRefusal('invalid', 'limit', { name, min: range.min, max: range.max }, name);
  }
  return limits;
}

export async function listGatewayServers(db: Queryable, orgId: string): Promise<GatewayServer[]> {
  return db.select().from(gatewayServers).where(eq(gatewayServers.orgId, orgId)).orderBy(asc(gatewayServers.name));
}

export async function findGatewayServer(db: Queryable, orgId: string, slug: string): Promise<GatewayServer | undefined> {
  const [row] = await db.select().from(gatewayServers).where(and(eq(gatewayServers.orgId, orgId), eq(gatewayServers.slug, slug))).limit(1);
  return row;
}

/** The server a resource identifier names (RFC 8707), with its app. */
export async function findGatewayServerByResource(db: Queryable, resource: string) {
  const [row] = await db.select({ server: gatewayServers, app: apps }).from(gatewayServers).innerJoin(apps, eq(apps.id, gatewayServers.appId)).where(eq(gatewayServers.resource, resource)).limit(1);
  return row;
}

export async function gatewayToolsOf(db: Queryable, serverId: string): Promise<GatewayToolRow[]> {
  return db.select().from(gatewayTools).where(eq(gatewayTools.serverId, serverId)).orderBy(asc(gatewayTools.name));
}

/** The tools agents are offered: approved at the definition offered now, not removed. */
export function offeredTools(tools: readonly GatewayToolRow[]): GatewayToolRow[] {
  return tools.filter((tool) => toolStateOf(tool) === 'approved');
}

/**
 * The upstream as a call reaches it (its credential unsealed in memory only). An OAuth-protected server is reached
 * with the person's own tokens: `person` is who the call is for, and refused when they have not connected.
 */
export async function upstreamTargetOf(server: GatewayServer, atRestKey: Uint8Array, person?: { db: Queryable; userId: string; issuer: string }): Promise<UpstreamTarget> {
  let oauth: UpstreamTarget['oauth'];
  if (server.credentialKind === 'oauth') {
    if (!person) throw new Error('an OAuth-protected upstream is reached for a person');
    const connectUrl = `${person.issuer}${GATEWAY_CONNECT_PATH}/${server.id}`;
    if (!(await isConnected(person.db, server.id, person.userId))) throw gatewayRefusal('upstream_refused', 'notConnected', { url: connectUrl });
    oauth = { provider: new UpstreamOAuthClient(person.db, server, person.userId, { issuer: person.issuer, atRestKey }), userId: person.userId, connectUrl };
  }
  return {
    ...(oauth ? { oauth } : {}),
    serverId: server.id,
    url: server.url,
    ...(server.credentialKind === 'header' && server.credentialHeader && server.credentialSealed
      ? { header: { name: server.credentialHeader, value: await decryptAtRest(server.credentialSealed, atRestKey) } }
      : {}),
    timeoutMs: server.timeoutMs,
    maxResponseBytes: server.maxResponseBytes,
    maxConcurrentCalls: server.maxConcurrentCalls,
  };
}

function about(server: Pick<GatewayServer, 'id' | 'name' | 'appId'>) {
  return { subject: { type: 'gateway_server', id: server.id, label: server.name }, appId: server.appId };
}

/** The app's surface declaration follows the approved tools: the permission catalog lists what they need. */
async function declareTools(tx: Queryable, server: GatewayServer): Promise<void> {
  const tools = offeredTools(await gatewayToolsOf(tx, server.id));
  await recordDeclaration(
    tx,
    server.appId,
    normalizeSurface(tools.map((tool) => ({ name: tool.name, riskLevel: tool.riskLevel as RiskLevel, requiredScopes: [tool.permission] }))),
    GATEWAY_DECLARATION_VERSION,
  );
}

export interface AddGatewayServerInput {
  name: string;
  slug?: string;
  url: string;
  credential?: { header: string; value: string };
  /** The upstream answered with an OAuth challenge: each person connects their own account (no tools read yet). */
  oauth?: boolean;
  limits?: Partial<GatewayLimits>;
  issuer: string;
  atRestKey: Uint8Array;
  /** The tools the upstream offered when it was read, just before. */
  tools: ToolDefinition[];
}

/**
 * Adds an upstream: the app that stands for it in the permissions model, the server, and its tools, all waiting
 * for approval. One event (gateway.server_added) names the tools read.
 */
export async function addGatewayServer(ctx: Context, input: AddGatewayServerInput): Promise<GatewayServer> {
  const name = input.name.trim();
  if (name.length < 1 || name.length > 80) throw gatewayRefusal('invalid', 'name', {}, 'name');
  const slug = input.slug?.trim() || slugFromName(name, 'server');
  const checkedSlug = validateSlug(slug);
  if (!checkedSlug.ok) throw gatewayRefusal('invalid', 'slug', { value: slug }, 'slug');
  const url = checkUpstreamUrl(input.url);
  const credential = input.credential ? checkCredential(input.credential.header, input.credential.value) : undefined;
  const limits = checkLimits(input.limits ?? {});
  if (await findGatewayServer(ctx.tx, ctx.org.id, slug)) throw gatewayRefusal('conflict', 'slugTaken', { value: slug }, 'slug');
  const appSlug = `mcp-${slug}`.slice(0, 64);
  const [taken] = await ctx.tx.select({ id: apps.id }).from(apps).where(and(eq(apps.orgId, ctx.org.id), eq(apps.slug, appSlug))).limit(1);
  if (taken) throw gatewayRefusal('conflict', 'slugTaken', { value: slug }, 'slug');
  const appId = randomUUID();
  // The app has no client of its own: nobody signs in to it; MCP clients bind to it by the server's resource. Two
  // additions of one short name at once: the second finds the first's row (a refusal, never a unique-key error).
  const [app] = await ctx.tx
    .insert(apps)
    .values({ id: appId, orgId: ctx.org.id, slug: appSlug, name, publishOrigin: new URL(input.issuer).origin, identity: `urn:portico:app:${appId}` })
    .onConflictDoNothing()
    .returning({ id: apps.id });
  if (!app) throw gatewayRefusal('conflict', 'slugTaken', { value: slug }, 'slug');
  await ctx.tx.insert(appSurfaces).values({ appId });
  const [server] = await ctx.tx
    .insert(gatewayServers)
    .values({
      orgId: ctx.org.id,
      appId,
      slug,
      name,
      url,
      resource: gatewayResource(input.issuer, ctx.org.slug, slug),
      ...(credential ? { credentialKind: 'header', credentialHeader: credential.header, credentialSealed: await encryptAtRest(credential.value, input.atRestKey) } : {}),
      ...(input.oauth && !credential ? { credentialKind: 'oauth' } : {}),
      ...limits,
      status: input.oauth && !credential ? 'unknown' : 'ok',
      checkedAt: new Date(),
    })
    .onConflictDoNothing()
    .returning();
  if (!server) throw gatewayRefusal('conflict', 'slugTaken', { value: slug }, 'slug');
  if (input.tools.length > 0) await ctx.tx.insert(gatewayTools).values(input.tools.map((tool) => newToolRow(server.id, tool)));
  await declareTools(ctx.tx, server);
  await ctx.audit({ action: 'gateway.server_added', ...about(server), details: { slug, url, credential: credential ? credential.header : input.oauth ? 'oauth' : null, tools: input.tools.map((tool) => tool.name) } });
  return server;
}

function newToolRow(serverId: string, tool: ToolDefinition) {
  const level = proposedLevelOf(tool);
  return { serverId, name: tool.name, offeredDefinition: tool, offeredDigest: definitionDigest(tool), proposedLevel: level, riskLevel: level };
}

export interface ToolsRead {
  added: string[];
  changed: string[];
  removed: string[];
  returned: string[];
}

/**
 * Records what an upstream offers now: a new tool waits for approval (gateway.tool_added), a changed definition is
 * withheld until approved again (gateway.tool_changed, with what changed), a tool no longer offered is removed
 * (gateway.tool_removed), one offered again comes back at its last approval. Each is its own event and webhook.
 */
export async function recordUpstreamTools(ctx: Context, server: GatewayServer, offered: ToolDefinition[]): Promise<ToolsRead> {
  // Two readings at once (the console and the CLI) are recorded one after the other, the second against the first's rows.
  await ctx.tx.select({ id: gatewayServers.id }).from(gatewayServers).where(eq(gatewayServers.id, server.id)).for('update');
  const known = new Map((await gatewayToolsOf(ctx.tx, server.id)).map((tool) => [tool.name, tool]));
  const read: ToolsRead = { added: [], changed: [], removed: [], returned: [] };
  const offeredNames = new Set<string>();
  for (const tool of offered) {
    offeredNames.add(tool.name);
    const digest = definitionDigest(tool);
    const row = known.get(tool.name);
    if (!row) {
      await ctx.tx.insert(gatewayTools).values(newToolRow(server.id, tool)).onConflictDoNothing();
      read.added.push(tool.name);
      await ctx.audit({ action: 'gateway.tool_added', ...about(server), details: { tool: tool.name, digest, proposedLevel: proposedLevelOf(tool) } });
      continue;
    }
    if (row.offeredDigest === digest && !row.removedAt) continue;
    await ctx.tx
      .update(gatewayTools)
      .set({ offeredDefinition: tool, offeredDigest: digest, proposedLevel: proposedLevelOf(tool), removedAt: null })
      .where(and(eq(gatewayTools.serverId, server.id), eq(gatewayTools.name, tool.name)));
    if (row.removedAt) read.returned.push(tool.name);
    if (row.offeredDigest !== digest) {
      read.changed.push(tool.name);
      const changes = definitionChanges(row.offeredDefinition as ToolDefinition, tool).map((change) => change.field);
      await ctx.audit({ action: 'gateway.tool_changed', ...about(server), details: { tool: tool.name, from: row.offeredDigest, to: digest, fields: changes, approved: row.approvedDigest === digest } });
    }
  }
  for (const [name, row] of known) {
    if (offeredNames.has(name) || row.removedAt) continue;
    await ctx.tx.update(gatewayTools).set({ removedAt: new Date() }).where(and(eq(gatewayTools.serverId, server.id), eq(gatewayTools.name, name)));
    read.removed.push(name);
    await ctx.audit({ action: 'gateway.tool_removed', ...about(server), details: { tool: name } });
  }
  await ctx.tx.update(gatewayServers).set({ status: 'ok', statusDetail: null, checkedAt: new Date() }).where(eq(gatewayServers.id, server.id));
  if (read.added.length + read.changed.length + read.removed.length + read.returned.length > 0) await declareTools(ctx.tx, server);
  return read;
}

/** What the last contact with an upstream found, outside any operation (a failed read, a failed call). */
export async function recordUpstreamStatus(db: Queryable, serverId: string, status: 'ok' | 'unreachable' | 'invalid', detail: string | null): Promise<void> {
  await db.update(gatewayServers).set({ status, statusDetail: detail, checkedAt: new Date() }).where(eq(gatewayServers.id, serverId));
}

async function toolOf(ctx: Context, server: GatewayServer, name: string): Promise<GatewayToolRow> {
  const [tool] = await ctx.tx
    .select()
    .from(gatewayTools)
    .where(and(eq(gatewayTools.serverId, server.id), eq(gatewayTools.name, name)))
    .for('update')
    .limit(1);
  if (!tool) throw gatewayRefusal('not_found', 'toolNotFound', { tool: name }, 'tool');
  return tool;
}

/**
 * Approves the definition the admin saw: `digest` is the offered digest they were shown (a compare-and-swap: a
 * definition that changed again since is refused, never approved unseen). Optionally at a level and permission.
 */
export async function approveGatewayTool(ctx: Context, server: GatewayServer, input: { tool: string; digest: string; level?: RiskLevel; approvedBy: string | null }): Promise<GatewayToolRow> {
  const tool = await toolOf(ctx, server, input.tool);
  if (tool.removedAt) throw gatewayRefusal('conflict', 'toolRemoved', { tool: tool.name }, 'tool');
  if (tool.offeredDigest !== input.digest) throw gatewayRefusal('conflict', 'toolChangedSince', { tool: tool.name }, 'tool');
  if (input.level !== undefined && !RISK_LEVELS.includes(input.level)) throw gatewayRefusal('invalid', 'level', {}, 'level');
  const level = input.level ?? (tool.riskLevel as RiskLevel);
  const [updated] = await ctx.tx
    .update(gatewayTools)
    .set({ approvedDefinition: tool.offeredDefinition, approvedDigest: tool.offeredDigest, approvedAt: new Date(), approvedBy: input.approvedBy, riskLevel: level })
    .where(and(eq(gatewayTools.serverId, server.id), eq(gatewayTools.name, tool.name)))
    .returning();
  await declareTools(ctx.tx, server);
  await ctx.audit({ action: 'gateway.tool_approved', ...about(server), details: { tool: tool.name, digest: tool.offeredDigest, level, previous: tool.approvedDigest } });
  return updated!;
}

export async function setGatewayToolLevel(ctx: Context, server: GatewayServer, name: string, level: RiskLevel): Promise<boolean> {
  if (!RISK_LEVELS.includes(level)) throw gatewayRefusal('invalid', 'level', {}, 'level');
  const tool = await toolOf(ctx, server, name);
  if (tool.riskLevel === level) return false;
  await ctx.tx.update(gatewayTools).set({ riskLevel: level }).where(and(eq(gatewayTools.serverId, server.id), eq(gatewayTools.name, name)));
  await declareTools(ctx.tx, server);
  await ctx.audit({ action: 'gateway.tool_level_changed', ...about(server), details: { tool: name, from: tool.riskLevel, to: level } });
  return true;
}

/** The permission a token needs for the tool: the baseline `mcp` (every member), or a scope of the admin's naming. */
export async function setGatewayToolPermission(ctx: Context, server: GatewayServer, name: string, permission: string): Promise<boolean> {
  const scope = permission.trim();
  if (scope !== BASELINE_SCOPE && !SCOPE_TOKEN.test(scope)) throw gatewayRefusal('invalid', 'permission', {}, 'permission');
  const tool = await toolOf(ctx, server, name);
  if (tool.permission === scope) return false;
  await ctx.tx.update(gatewayTools).set({ permission: scope }).where(and(eq(gatewayTools.serverId, server.id), eq(gatewayTools.name, name)));
  await declareTools(ctx.tx, server);
  await ctx.audit({ action: 'gateway.tool_permission_changed', ...about(server), details: { tool: name, from: tool.permission, to: scope } });
  return true;
}

/** Off: no token is issued for it, nobody calls it, its grants wait. On again: as before. */
export async function setGatewayServerDisabled(ctx: Context, server: GatewayServer, disabled: boolean): Promise<boolean> {
  const changed = await ctx.tx
    .update(gatewayServers)
    .set({ disabledAt: disabled ? new Date() : null })
    .where(and(eq(gatewayServers.id, server.id), disabled ? isNull(gatewayServers.disabledAt) : eq(gatewayServers.id, server.id)))
    .returning({ id: gatewayServers.id });
  if (changed.length === 0 || (!disabled && !server.disabledAt)) return false;
  await setAppDisabled(ctx.tx, server.appId, disabled);
  forgetUpstream(server.id);
  await ctx.audit({ action: disabled ? 'gateway.server_disabled' : 'gateway.server_enabled', ...about(server) });
  return true;
}

/** Replaces the server's credential (or removes it: none). The value is sealed at once and never shown again. */
export async function setGatewayCredential(ctx: Context, server: GatewayServer, credential: { header: string; value: string } | null, atRestKey: Uint8Array): Promise<void> {
  // Each person's own account, kept per person: no shared credential replaces it, and removing one would call it bare.
  if (server.credentialKind === 'oauth') throw gatewayRefusal('conflict', 'oauthCredential', {}, 'credentialHeader');
  const checked = credential ? checkCredential(credential.header, credential.value) : null;
  await ctx.tx
    .update(gatewayServers)
    .set(checked ? { credentialKind: 'header', credentialHeader: checked.header, credentialSealed: await encryptAtRest(checked.value, atRestKey) } : { credentialKind: 'none', credentialHeader: null, credentialSealed: null })
    .where(eq(gatewayServers.id, server.id));
  forgetUpstream(server.id);
  await ctx.audit({ action: 'gateway.server_credential_changed', ...about(server), details: { credential: checked ? checked.header : null } });
}

export async function setGatewayLimits(ctx: Context, server: GatewayServer, limits: Partial<GatewayLimits>): Promise<void> {
  const checked = checkLimits(limits);
  await ctx.tx.update(gatewayServers).set(checked).where(eq(gatewayServers.id, server.id));
  forgetUpstream(server.id);
  await ctx.audit({ action: 'gateway.server_limits_changed', ...about(server), details: { ...checked } });
}

/** Removes the server for good: its app goes with every grant at it (lib/grants), its tools with it. */
export async function removeGatewayServer(ctx: Context, server: GatewayServer): Promise<void> {
  await ctx.audit({ action: 'gateway.server_removed', ...about(server), details: { slug: server.slug, url: server.url } });
  await deleteApp(ctx.tx, server.appId);
  forgetUpstream(server.id);
}
