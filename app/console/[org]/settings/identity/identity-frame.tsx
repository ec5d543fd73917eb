// Settings → Identity, page by page: domains, sign-in connections (a list, and one page per connection), directory
// sync (SCIM) and enterprise-managed authorization (ID-JAG). Each page stands under the settings tabs and these; an
// organization member without `identity.manage` (owners only) reads why there is nothing here.
import { AppTabs } from '../../apps/[app]/app-tabs';
import { PageHeader } from '../../../_components/page-header';
import type { OrgAccess } from '../../../_lib/access';
import { getT } from '@/app/_lib/i18n/server';
import { SettingsTabs } from '../settings-tabs';

export const IDENTITY_SECTIONS = ['', 'connections', 'directory-sync', 'enterprise-authorization'] as const;
const SECTION_LABEL = { '': 'domains', connections: 'connections', 'directory-sync': 'directorySync', 'enterprise-authorization': 'enterpriseAuthorization' } as const;

export const identityPath = (org: string, section: (typeof IDENTITY_SECTIONS)[number] = '') => `/console/${org}/settings/identity${section ? `/${section}` : ''}`;
export const connectionPath = (org: string, connectionId: string) => `${identityPath(org, 'connections')}/${connectionId}`;

export async function identityPageTitle(section: (typeof IDENTITY_SECTIONS)[number]): Promise<string> {
  const t = await getT('console.identity');
  return `${t(`tabs.${SECTION_LABEL[section]}`)} · ${t('pageTitle')}`;
}

/** `title` and `description` name one item's page (a connection); the sections' pages carry the settings' own. */
export async function IdentityFrame({ access, title, description, children }: { access: OrgAccess; title?: string; description?: string; children?: React.ReactNode }) {
  const t = await getT('console.identity');
  const settings = await getT('console.settings');
  if (!access.can('identity.manage')) return <PageHeader title={t('pageTitle')} description={t('notAllowed')} />;
  return (
    <>
      <PageHeader title={title ?? settings('title')} description={title ? description : settings('description')} />
      <SettingsTabs access={access} />
      <AppTabs base={identityPath(access.org.slug)} label={t('tabs.label')} tabs={IDENTITY_SECTIONS.map((segment) => ({ segment, label: t(`tabs.${SECTION_LABEL[segment]}`) }))} />
      {children}
    </>
  );
}
