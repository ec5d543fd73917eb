// "People at these domains must sign in through the company's identity provider": a connection's `requireSso`. The
// password form (every sign-in door: an app's card, the console, the central, the embedded central) and password
// reset refuse an address at one of the connection's verified domains — except for the owners of the connection's
// organization, who keep a password as a way back in when the identity provider fails (as Okta, Auth0 and Keycloak
// let an administrator do). Asked only after a right password, so the answer tells nothing to someone who does not
// know it (an owner's exemption included).
import { and, eq, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { identityConnections, memberships, orgDomains } from '../db/schema';
import { normalizeEmail } from '../util/email';
import { domainOfEmail, signsIn } from './connections';

/** The connection this person must sign in through, or undefined when a password may sign them in. */
export async function ssoRequiredFor(db: Queryable, person: { id: string; email: string }): Promise<{ connectionId: string; connectionName: string; orgId: string } | undefined> {
  const domain = domainOfEmail(normalizeEmail(person.email));
  if (!domain) return undefined;
  const [row] = await db
    .select({ connectionId: identityConnections.id, connectionName: identityConnections.name, orgId: identityConnections.orgId })
    .from(orgDomains)
    .innerJoin(identityConnections, eq(identityConnections.id, orgDomains.connectionId))
    .where(
      and(
        eq(orgDomains.domain, domain),
        signsIn,
        eq(identityConnections.requireSso, true),
        sql`not exists (select 1 from ${memberships} where ${memberships.orgId} = ${identityConnections.orgId} and ${memberships.userId} = ${person.id} and ${memberships.role} = 'owner')`,
      ),
    )
    .limit(1);
  return row;
}
