// For console actions on one app: the app, looked up inside the organization the action is authorized for.
import 'server-only';
import { findOrgApp } from '@/lib/clients/apps';
import type { Queryable } from '@/lib/db/client';
import { localized } from '@/lib/i18n/catalogs';
import { actionRefusal } from './action';

export async function orgAppOrRefuse(tx: Queryable, orgId: string, appId: string) {
  const listing = await findOrgApp(tx, orgId, appId);
  if (!listing) throw actionRefusal(localized('refusals.appNotInOrg'));
  return listing;
}
