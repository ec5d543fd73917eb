// Ending grants from outside a protocol request: when a person leaves an organization, or a client is revoked.
import { and, eq, inArray, isNotNull, or } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { apps, clients, grantBindings, oidcPayloads } from '../db/schema';

/** Every client that reaches an app of the organization: the apps' own clients and clients bound to those apps. */
function clientsOfOrganization(db: Queryable, orgId: string) {
  return db
    .select({ id: clients.id })
    .from(clients)
    .leftJoin(apps, eq(apps.id, clients.appId))
    .where(or(eq(clients.orgId, orgId), eq(apps.orgId, orgId)));
}

/**
 * Deletes the person's grants at the organization's clients, with every code and token issued from them.
 * Access tokens already issued as JWTs cannot be recalled: they stay valid until they expire (10 minutes at most).
 */
export async function revokePersonGrantsInOrganization(db: Queryable, orgId: string, userId: string): Promise<number> {
  const grants = await db
    .select({ id: oidcPayloads.id })
    .from(oidcPayloads)
    .where(and(eq(oidcPayloads.kind, 'Grant'), eq(oidcPayloads.accountId, userId), inArray(oidcPayloads.clientId, clientsOfOrganization(db, orgId))));
  // Grants of dynamic and CIMD clients belong to the organization through their binding, not through the client.
  const bound = await db
    .delete(grantBindings)
    .where(and(eq(grantBindings.orgId, orgId), eq(grantBindings.accountId, userId)))
    .returning({ id: grantBindings.grantId });
  const grantIds = [...new Set([...grants, ...bound].map((grant) => grant.id))];
  await db
    .delete(oidcPayloads)
    .where(
      and(
        eq(oidcPayloads.accountId, userId),
        isNotNull(oidcPayloads.clientId),
        or(
          inArray(oidcPayloads.clientId, clientsOfOrganization(db, orgId)),
          grantIds.length > 0 ? inArray(oidcPayloads.grantId, grantIds) : undefined,
        ),
      ),
    );
  return grantIds.length;
}

/** Deletes every grant, code and token of the organization's clients (before the organization itself goes). */
export async function revokeOrganizationGrants(db: Queryable, orgId: string): Promise<void> {
  await db.delete(oidcPayloads).where(inArray(oidcPayloads.clientId, clientsOfOrganization(db, orgId)));
  const bound = db.select({ id: grantBindings.grantId }).from(grantBindings).where(eq(grantBindings.orgId, orgId));
  await db.delete(oidcPayloads).where(or(inArray(oidcPayloads.grantId, bound), and(eq(oidcPayloads.kind, 'Grant'), inArray(oidcPayloads.id, bound))));
}

/**
 * Ends everything oidc-provider holds for the person, in every organization: sessions (the next app visit asks for
 * the password), grants, codes and refresh tokens (a refresh gets invalid_grant), also those an agent holds on
 * the person's behalf (`act`). Access tokens already issued as JWTs end when they expire (10 minutes at most).
 */
export async function endEveryGrantAndSessionOfPerson(db: Queryable, userId: string): Promise<number> {
  await db.delete(grantBindings).where(eq(grantBindings.accountId, userId));
  const ended = await db.delete(oidcPayloads).where(eq(oidcPayloads.accountId, userId)).returning({ kind: oidcPayloads.kind });
  return ended.filter((row) => row.kind === 'Grant' || row.kind === 'Session').length;
}
