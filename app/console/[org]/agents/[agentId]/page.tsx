// An agent's page: what it may do in each app of the organization, and why; and, for those who manage agents, its
// status and how a workload gets a token as it (its key credentials, its trust rules, a test of a workload token).
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { findUserById } from '@/lib/accounts/users';
import { agentIdSchema } from '@/lib/organizations/agent-commands';
import { listAgentKeys } from '@/lib/organizations/agent-keys';
import { findOrgAgent } from '@/lib/organizations/agents';
import { listTeams } from '@/lib/organizations/teams';
import { listTrustRules } from '@/lib/organizations/workload-trust';
import { db, runtime } from '@/lib/runtime';
import { SubjectPermissionsPage } from '../../../_lib/subject-permissions';
import { requireOrgAccess } from '../../../_lib/access';
import { getT } from '@/app/_lib/i18n/server';
import { FederationSection, KeyCredentialsSection, StatusSection, TokenTestSection } from './workload-sections';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.agent'))('pageTitle') };
}

export default async function AgentPage(props: { params: Promise<{ org: string; agentId: string }> }) {
  const { org, agentId } = await props.params;
  if (!agentIdSchema.safeParse(agentId).success) notFound();
  const t = await getT('console.agent');
  const back = { href: `/console/${org}/agents`, label: t('back') };
  const access = await requireOrgAccess(org);
  // Only those who manage agents see and change how it runs; anyone who may read members sees what it may do.
  if (!access.can('agents.manage')) return <SubjectPermissionsPage orgSlug={org} subject={agentId} back={back} />;
  const agent = await findOrgAgent(db(), access.org.id, agentId);
  if (!agent) notFound();
  const [owner, teams, keys, rules] = await Promise.all([
    findUserById(db(), agent.ownerUserId),
    listTeams(db(), access.org.id),
    listAgentKeys(db(), agent.id),
    listTrustRules(db(), access.org.id, agent.id),
  ]);
  const issuer = runtime().env.PORTICO_ISSUER;
  const slug = access.org.slug;
  return (
    <SubjectPermissionsPage orgSlug={org} subject={agentId} back={back} title={agent.name}>
      <StatusSection org={slug} agent={agent} ownerEmail={owner?.email ?? ''} teams={teams.map(({ team }) => ({ id: team.id, name: team.name }))} />
      <KeyCredentialsSection org={slug} agent={agent} keys={keys} issuer={issuer} />
      <FederationSection org={slug} agent={agent} rules={rules} issuer={issuer} />
      <TokenTestSection org={slug} />
    </SubjectPermissionsPage>
  );
}
