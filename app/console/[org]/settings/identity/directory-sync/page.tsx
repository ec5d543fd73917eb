// Settings → Identity → Directory sync: the organization's SCIM 2.0 provisioning (scim-section.tsx).
import type { Metadata } from 'next';
import { requireOrgAccess } from '../../../../_lib/access';
import { scimTokenOf } from '@/lib/identity/scim/tokens';
import { db, runtime } from '@/lib/runtime';
import { IdentityFrame, identityPageTitle } from '../identity-frame';
import { ScimSection } from '../scim-section';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: await identityPageTitle('directory-sync') };
}

export default async function DirectorySyncPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  if (!access.can('identity.manage')) return <IdentityFrame access={access} />;
  const token = await scimTokenOf(db(), access.org.id);
  return (
    <IdentityFrame access={access}>
      <ScimSection org={access.org.slug} issuer={runtime().env.PORTICO_ISSUER} token={token} />
    </IdentityFrame>
  );
}
