// What an admin does to the MCP clients of an organization's apps, once: the console, the REST API and the
// clients.revoke tool call these, so each operation is refused, done and audited the same way whichever door it
// came through. The caller has authorized `clients.manage` through the organization-operation kernel.
import type { OrgOperationContext } from '../organizations/org-operation';
import { localized } from '../i18n/catalogs';
import type { findOrgApp } from './apps';
import { revokeClientAtApp } from './binding';
import { createExternalClient, validateExternalClient } from './external';
import { commandRefusal } from '../organizations/refusal-codes';
import { clientMetadataRefusal } from './refusal-codes';

type AppListing = NonNullable<Awaited<ReturnType<typeof findOrgApp>>>;
type Context = Pick<OrgOperationContext, 'tx' | 'org' | 'audit'>;

/** Registers a public MCP client for one app of the organization (no secret; PKCE). */
export async function registerExternalClient(ctx: Context, app: AppListing, input: { label: unknown; redirectUris: unknown }) {
  const valid = validateExternalClient(input.label, input.redirectUris);
  if (!valid.ok) throw clientMetadataRefusal(valid.field, valid.text);
  const { clientId } = await createExternalClient(ctx.tx, { orgId: ctx.org.id, appId: app.app.id, label: valid.label, redirectUris: valid.redirectUris, native: valid.native });
  await ctx.audit({ action: 'client.external_registered', subject: { type: 'client', id: clientId, label: valid.label }, appId: app.app.id, clientId, details: { redirectUris: valid.redirectUris } });
  return { clientId, label: valid.label, redirectUris: valid.redirectUris };
}

/** Revokes a client at one app: no new authorization there, and its grants there end. Never across apps. */
export async function revokeClientAtAppCommand(ctx: Context, app: AppListing, clientId: string): Promise<{ grantsEnded: number }> {
  const outcome = await revokeClientAtApp(ctx.tx, clientId, app.app.id);
  if (!outcome.ok) {
    throw commandRefusal(
      409,
      outcome.reason === 'not_linked' ? localized('refusals.clients.notLinked', { app: app.app.name }) : localized('refusals.clients.revokedAlready'),
      outcome.reason,
    );
  }
  await ctx.audit({ action: 'client.revoked', subject: { type: 'client', id: clientId }, appId: app.app.id, clientId, details: { grantsEnded: outcome.grantsEnded } });
  return outcome;
}
