// /console: straight to the first organization the person belongs to.
import { redirect } from 'next/navigation';
import { listMembershipsOf } from '@/lib/organizations/memberships';
import { db } from '@/lib/runtime';
import { requireConsoleSession } from './_lib/session';

export const dynamic = 'force-dynamic';

export default async function ConsoleHome() {
  const session = await requireConsoleSession();
  const [first] = await listMembershipsOf(db(), session.user.id);
  redirect(first ? `/console/${first.slug}/apps` : '/console/account');
}
