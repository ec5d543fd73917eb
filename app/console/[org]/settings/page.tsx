import type { Metadata } from 'next';
import { requireOrgAccess } from '../../_lib/access';
import { PageHeader } from '../../_components/page-header';
import { BrandingForm } from './branding-form';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Organization settings' };

export default async function SettingsPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  if (!access.can('branding.manage')) return <PageHeader title="Settings" description="Only the organization’s owners and admins change its settings." />;
  const { org } = access;
  return (
    <>
      <PageHeader title="Organization settings" description="Whitelabel branding: the sign-in card of every app of this organization wears it." />
      <BrandingForm
        org={org.slug}
        orgName={org.name}
        initial={{
          displayName: org.brandDisplayName ?? '',
          logoUrl: org.brandLogoUrl ?? '',
          primaryColor: org.brandPrimaryColor ?? '',
          backgroundColor: org.brandBackgroundColor ?? '',
        }}
      />
    </>
  );
}
