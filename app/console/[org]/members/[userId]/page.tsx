// A member's page: what they may do in each app of the organization, and why.
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { isUuid } from '@/lib/util/uuid';
import { SubjectPermissionsPage } from '../../../_lib/subject-permissions';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Member' };

export default async function MemberPage(props: { params: Promise<{ org: string; userId: string }> }) {
  const { org, userId } = await props.params;
  if (!isUuid(userId)) notFound();
  return <SubjectPermissionsPage orgSlug={org} subject={userId} back={{ href: `/console/${org}/members`, label: 'Members' }} />;
}
