// An agent's page: what it may do in each app of the organization, and why.
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { agentIdSchema } from '@/lib/organizations/agent-commands';
import { SubjectPermissionsPage } from '../../../_lib/subject-permissions';
import { getT } from '@/app/_lib/i18n/server';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.agent'))('pageTitle') };
}

export default async function AgentPage(props: { params: Promise<{ org: string; agentId: string }> }) {
  const { org, agentId } = await props.params;
  if (!agentIdSchema.safeParse(agentId).success) notFound();
  const t = await getT('console.agent');
  return <SubjectPermissionsPage orgSlug={org} subject={agentId} back={{ href: `/console/${org}/agents`, label: t('back') }} />;
}
