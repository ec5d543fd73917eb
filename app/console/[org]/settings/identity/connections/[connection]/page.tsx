// Settings → Identity → one sign-in connection (connections.tsx, ConnectionDetails). Another organization's
// connection, or none, is "not found" here (the list's link is the only way in).
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { requireOrgAccess } from '../../../../../_lib/access';
import { listTeams } from '@/lib/organizations/teams';
import { listConnections } from '@/lib/identity/connections';
import { listDomains } from '@/lib/identity/domains';
import { getT } from '@/app/_lib/i18n/server';
import { db, runtime } from '@/lib/runtime';
import { IdentityFrame, identityPageTitle, identityPath } from '../../identity-frame';
import { ConnectionDetails } from '../../connections';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: await identityPageTitle('connections') };
}

export default async function ConnectionPage(props: { params: Promise<{ org: string; connection: string }> }) {
  const params = await props.params;
  const access = await requireOrgAccess(params.org);
  if (!access.can('identity.manage')) return <IdentityFrame access={access} />;
  const [connections, domains, teams] = await Promise.all([listConnections(db(), access.org.id), listDomains(db(), access.org.id), listTeams(db(), access.org.id)]);
  const connection = connections.find((candidate) => candidate.id === params.connection);
  if (!connection) notFound();
  const t = await getT('console.identity');
  const org = access.org.slug;
  return (
    <IdentityFrame access={access} title={connection.name} description={t(`connections.kinds.${connection.kind}`)}>
      <p className="mb-4 text-sm">
        <Link href={identityPath(org, 'connections')}>← {t('connections.page.back')}</Link>
      </p>
      <ConnectionDetails org={org} issuer={runtime().env.PORTICO_ISSUER} connection={connection} domains={domains} teams={teams.map(({ team }) => ({ id: team.id, name: team.name }))} />
    </IdentityFrame>
  );
}
