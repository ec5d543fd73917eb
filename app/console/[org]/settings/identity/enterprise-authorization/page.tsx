// Settings → Identity → Enterprise-managed authorization (ID-JAG): enterprise-authorization.tsx.
import type { Metadata } from 'next';
import { requireOrgAccess } from '../../../../_lib/access';
import { listApps } from '@/lib/clients/apps';
import { listConnections } from '@/lib/identity/connections';
import { listRemoteMcpServers, listTrustedAssertionIssuers } from '@/lib/identity/enterprise-authorization';
import { db, runtime } from '@/lib/runtime';
import { IdentityFrame, identityPageTitle } from '../identity-frame';
import { EnterpriseAuthorizationSection } from '../enterprise-authorization';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: await identityPageTitle('enterprise-authorization') };
}

export default async function EnterpriseAuthorizationPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  if (!access.can('identity.manage')) return <IdentityFrame access={access} />;
  const [connections, servers, trusted, apps] = await Promise.all([
    listConnections(db(), access.org.id),
    listRemoteMcpServers(db(), access.org.id),
    listTrustedAssertionIssuers(db(), access.org.id),
    listApps(db(), access.org.slug),
  ]);
  return (
    <IdentityFrame access={access}>
      <EnterpriseAuthorizationSection
        org={access.org.slug}
        orgId={access.org.id}
        issuer={runtime().env.PORTICO_ISSUER}
        servers={servers}
        trusted={trusted}
        apps={apps.map((row) => ({ id: row.app.id, name: row.app.name }))}
        oidcConnections={connections.filter((connection) => connection.kind === 'oidc' && !trusted.some((entry) => entry.connectionId === connection.id)).map((connection) => ({ id: connection.id, name: connection.name }))}
      />
    </IdentityFrame>
  );
}
