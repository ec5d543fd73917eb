// The organization's settings as tabs: one page each (General, Approvals, Webhooks, Identity), the same tabs the app
// pages use.
import { AppTabs } from '../apps/[app]/app-tabs';
import { getT } from '@/app/_lib/i18n/server';
import type { OrgAccess } from '../../_lib/access';

export async function SettingsTabs({ access }: { access: OrgAccess }) {
  const t = await getT('console.settings');
  const tabs = [
    ...(access.can('branding.manage') ? [{ segment: '', label: t('tabs.general') }] : []),
    ...(access.can('approvals.policy') ? [{ segment: 'approvals', label: t('tabs.approvals') }] : []),
    ...(access.can('webhooks.manage') ? [{ segment: 'webhooks', label: t('tabs.webhooks') }] : []),
    ...(access.can('identity.manage') ? [{ segment: 'identity', label: t('tabs.identity') }] : []),
  ];
  return tabs.length > 1 ? <AppTabs base={`/console/${access.org.slug}/settings`} tabs={tabs} label={t('tabs.label')} /> : null;
}
