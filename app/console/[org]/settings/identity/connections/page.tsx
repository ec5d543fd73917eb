// Settings → Identity → Sign-in connections: the list, the people linked through them, and the forms to add one.
import type { Metadata } from 'next';
import { requireOrgAccess } from '../../../../_lib/access';
import { listConnections } from '@/lib/identity/connections';
import { listDomains } from '@/lib/identity/domains';
import { linkedIdentitiesThroughOrg } from '@/lib/identity/links';
import { db, runtime } from '@/lib/runtime';
import { IdentityFrame, identityPageTitle } from '../identity-frame';
import { AddConnectionForms, ConnectionsListSection } from '../connections';
import { LinkedPeopleSection } from '../linked-people';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: await identityPageTitle('connections') };
}

export default async function ConnectionsPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  if (!access.can('identity.manage')) return <IdentityFrame access={access} />;
  const [connections, domains, links] = await Promise.all([listConnections(db(), access.org.id), listDomains(db(), access.org.id), linkedIdentitiesThroughOrg(db(), access.org.id)]);
  const org = access.org.slug;
  return (
    <IdentityFrame access={access}>
      <ConnectionsListSection org={org} connections={connections} />
      <AddConnectionForms org={org} issuer={runtime().env.PORTICO_ISSUER} hasConnections={connections.length > 0} domains={domains} />
      {connections.length > 0 ? <LinkedPeopleSection org={org} links={links} /> : null}
    </IdentityFrame>
  );
}
