import type { Metadata } from 'next';
import { When } from '@/app/_components/when';
import Link from 'next/link';
import { listOpenInvitations } from '@/lib/organizations/invitations';
import { listMembersPage, MEMBERS_PAGE_SIZE } from '@/lib/organizations/memberships';
import { listTeamNames } from '@/lib/organizations/teams';
import { db } from '@/lib/runtime';
import { requireOrgAccess } from '../../_lib/access';
import { ActionForm, ConfirmedAction } from '../../_components/action-form';
import { Field, Select } from '../../_components/fields';
import { columnLabels, DataTable, EmptyState, PageHeader, ReadOnlyNotice } from '../../_components/page-header';
import { inviteMemberAction, resendInvitationAction, revokeInvitationAction } from './actions';
import { fillIn, getT } from '@/app/_lib/i18n/server';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.members'))('pageTitle') };
}

/** A query-string value, trimmed and bounded (a long one is cut, not refused). */
function queryText(value: string | string[] | undefined): string | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim().slice(0, 320);
  return text ? text : undefined;
}

export default async function MembersPage(props: { params: Promise<{ org: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const access = await requireOrgAccess((await props.params).org);
  const manage = access.can('members.manage');
  const query = await props.searchParams;
  const search = queryText(query.q);
  const removed = typeof query.removed === 'string';
  const after = queryText(query.after);
  const [{ members, nextAfter, total }, invitations, teams] = await Promise.all([
    listMembersPage(db(), access.org.id, { after, search }),
    manage ? listOpenInvitations(db(), access.org.id) : Promise.resolve([]),
    manage ? listTeamNames(db(), access.org.id) : Promise.resolve([]),
  ]);
  const teamName = new Map(teams.map((team) => [team.id, team.name]));
  const org = access.org.slug;
  const t = await getT('console');
  // Each row's words, formatted once for the page (fillIn): a hundred rows, three messages each.
  const roleName = { owner: t('role', { role: 'owner' }), admin: t('role', { role: 'admin' }), member: t('role', { role: 'member' }) };
  const permissionsOf = fillIn((email) => t('members.list.permissionsOf', { email }));
  const manageOf = fillIn((email) => t('members.list.manageOf', { email }));
  const ROLE_OPTIONS = [
    { value: 'member', label: t('members.roleOptions.member') },
    { value: 'admin', label: t('members.roleOptions.admin') },
    { value: 'owner', label: t('members.roleOptions.owner') },
  ];
  return (
    <>
      <PageHeader title={t('members.title')} description={t('members.description')} />
      {removed ? (
        <div className="alert alert-success mb-4" role="status" data-testid="member-removed">
          {t('members.done.removedUnknown')}
        </div>
      ) : null}
      {manage ? null : <ReadOnlyNotice />}
      {manage ? (
        <section className="panel mb-6" aria-labelledby="invite-heading">
          <h2 id="invite-heading" className="mb-1 font-semibold">
            {t('members.invite.title')}
          </h2>
          <p className="mb-3 text-sm text-slate-600">{t('members.invite.description')}</p>
          <ActionForm action={inviteMemberAction} org={org} submitLabel={t('members.invite.submit')} testId="invite-member">
            <div className="flex flex-wrap items-end gap-2">
              <Field label={t('members.invite.email')} name="email" type="email" required maxLength={320} autoComplete="off" />
              <Select label={t('members.invite.role')} name="role" options={ROLE_OPTIONS} defaultValue="member" />
            </div>
            {teams.length > 0 ? (
              <fieldset className="grid gap-1">
                <legend className="text-sm font-medium text-slate-800">{t('members.invite.teams')}</legend>
                <div className="flex flex-wrap gap-4">
                  {teams.map((team) => (
                    <label key={team.id} className="flex items-center gap-2 text-sm">
                      <input type="checkbox" name="teamIds" value={team.id} />
                      {team.name}
                    </label>
                  ))}
                </div>
              </fieldset>
            ) : null}
          </ActionForm>
        </section>
      ) : null}
      {manage && invitations.length > 0 ? (
        <section className="panel mb-6 overflow-x-auto" aria-labelledby="pending-heading" tabIndex={0}>
          <h2 id="pending-heading" className="mb-3 font-semibold">
            {t('members.pending.title')}
          </h2>
          <table
            className="table"
            data-testid="pending-invitations"
            style={columnLabels([t('members.pending.email'), t('members.pending.roleAndTeams'), t('members.pending.link'), t('members.pending.actions')])}
          >
            <thead>
              <tr>
                <th scope="col">{t('members.pending.email')}</th>
                <th scope="col">{t('members.pending.roleAndTeams')}</th>
                <th scope="col">{t('members.pending.link')}</th>
                <th scope="col">{t('members.pending.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {invitations.map((invitation) => (
                <tr key={invitation.id} data-email={invitation.email}>
                  <td className="font-medium">{invitation.email}</td>
                  <td>
                    {t('role', { role: invitation.role })}
                    {invitation.teamIds.length > 0 ? (
                      <div className="text-xs text-slate-500">{invitation.teamIds.map((id) => teamName.get(id) ?? t('members.pending.deletedTeam')).join(', ')}</div>
                    ) : null}
                  </td>
                  <td className="text-sm">
                    {invitation.expired ? (
                      <span className="badge">{t('members.pending.expired')}</span>
                    ) : (
                      t.rich('members.pending.sent', {
                        sent: () => <When value={invitation.lastSentAt} />,
                        until: () => <When value={invitation.expiresAt} relative={false} />,
                      })
                    )}
                  </td>
                  <td className="grid gap-2">
                    <ActionForm action={resendInvitationAction} org={org} submitLabel={t('members.pending.resend')} variant="secondary" inline>
                      <input type="hidden" name="invitationId" value={invitation.id} />
                    </ActionForm>
                    <ConfirmedAction
                      action={revokeInvitationAction}
                      org={org}
                      label={t('members.pending.revoke')}
                      confirm={t('members.pending.confirmRevoke', { email: invitation.email })}
                      confirmLabel={t('members.pending.confirmRevokeLabel')}
                      fields={{ invitationId: invitation.id }}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
      <form method="get" className="panel mb-4 flex flex-wrap items-end gap-2" role="search" aria-label={t('members.browse.label')}>
        <label className="grid gap-1 text-sm">
          {t('members.browse.label')}
          <input className="input" type="search" name="q" defaultValue={search ?? ''} placeholder={t('members.browse.search')} maxLength={200} />
        </label>
        <button className="btn btn-secondary" type="submit">
          {t('members.browse.submit')}
        </button>
        {search ? (
          <Link className="btn btn-secondary" href={`/console/${org}/members`}>
            {t('members.browse.clear')}
          </Link>
        ) : null}
        <p className="ml-auto text-sm text-slate-600" data-testid="members-count">
          {search ? t('members.browse.found', { total, search }) : t('members.browse.count', { total })}
        </p>
      </form>
      {members.length === 0 ? (
        // A search that finds no one already says so beside the search field.
        search ? null : <EmptyState title={t('members.empty')} />
      ) : (
        // Plain rows (issue 61): a person's role, password reset and removal are on their own page, one form each,
        // where this list's links lead; a hundred rows of three forms each cost 40 ms of server CPU per page view.
        <DataTable testId="members" columns={[t('members.list.person'), t('members.list.role')]} actions={manage}>
          {members.map((member) => {
            const page = `/console/${org}/members/${member.userId}`;
            return (
              <tr key={member.userId} data-email={member.email}>
                <td>
                  <div className="font-medium">
                    <a href={page} aria-label={permissionsOf(member.email)}>
                      {member.email}
                    </a>
                  </div>
                  <div className="text-xs text-slate-500">
                    {member.name}
                    {member.disabled ? t('members.list.disabled') : ''}
                  </div>
                </td>
                <td>{roleName[member.role]}</td>
                {manage ? (
                  <td>
                    <a className="btn btn-secondary" href={`${page}#membership`} aria-label={manageOf(member.email)}>
                      {t('members.list.manage')}
                    </a>
                  </td>
                ) : null}
              </tr>
            );
          })}
        </DataTable>
      )}
      {nextAfter || after ? (
        <nav className="mt-4 flex gap-2" aria-label={t('members.browse.label')}>
          {after ? (
            <Link className="btn btn-secondary" href={`/console/${org}/members${search ? `?q=${encodeURIComponent(search)}` : ''}`}>
              {t('members.browse.first')}
            </Link>
          ) : null}
          {nextAfter ? (
            <Link className="btn btn-secondary" href={`/console/${org}/members?${new URLSearchParams({ ...(search ? { q: search } : {}), after: nextAfter }).toString()}`}>
              {t('members.browse.next', { size: MEMBERS_PAGE_SIZE })}
            </Link>
          ) : null}
        </nav>
      ) : null}
    </>
  );
}
