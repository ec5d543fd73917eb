// One MCP server of the gateway (issue 58): the address agents' MCP clients are given, what Portico last found at the
// upstream, and its tools: each approved at a definition the admin saw (the digest the page shows is the one
// approved), at a level and with a permission of the admin's choosing. A changed tool shows what changed before it
// can be approved again. Then the upstream's credential and limits, turning it off, and removing it.
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { RISK_LEVELS } from '@/app-kit/risk';
import { definitionChanges, type ToolDefinition } from '@/lib/gateway/definitions';
import { findGatewayServer, gatewayToolsOf, toolStateOf, type GatewayToolRow } from '@/lib/gateway/servers';
import { connectionsOfServer } from '@/lib/gateway/upstream-oauth';
import type { Translator } from '@/lib/i18n/catalogs';
import { db } from '@/lib/runtime';
import { visibleText } from '@/lib/util/visible-text';
import { getT } from '@/app/_lib/i18n/server';
import { CopyButton } from '@/app/_components/copy-button';
import { When } from '@/app/_components/when';
import { requireOrgAccess } from '../../../_lib/access';
import { ActionForm } from '../../../_components/action-form';
import { Field } from '../../../_components/fields';
import { DataTable, PageHeader, Section } from '../../../_components/page-header';
import { refreshToolsAction, removeCredentialAction, removeServerAction, setCredentialAction, setLimitsAction, setServerDisabledAction, toolAction } from '../actions';
import { CredentialHeaderFields } from '../credential-fields';
import { LimitFields } from '../limit-fields';
import { formLimitsOf } from '../limits';
import { ServerStatus } from '../server-status';
import { ToolButton, ToolOutcome, ToolsForm } from '../tools-form';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.servers'))('server.pageTitle') };
}

export default async function ServerPage(props: { params: Promise<{ org: string; server: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await props.params;
  const access = await requireOrgAccess(params.org);
  const t = await getT('console.servers');
  if (!access.can('apps.manage')) return <PageHeader title={t('server.pageTitle')} description={t('notAllowed')} />;
  const server = await findGatewayServer(db(), access.org.id, params.server);
  if (!server) notFound();
  const [tools, connections] = await Promise.all([gatewayToolsOf(db(), server.id), server.credentialKind === 'oauth' ? connectionsOfServer(db(), server.id) : Promise.resolve([])]);
  const added = (await props.searchParams).added;
  const org = access.org.slug;
  const base = `/console/${org}/servers`;
  const limits = formLimitsOf(server);
  return (
    <>
      <nav aria-label={t('breadcrumb')} className="mb-2 text-sm wrap-anywhere">
        <ol className="flex flex-wrap items-center gap-1 text-slate-600">
          <li>
            <Link href={base}>{t('servers')}</Link>
          </li>
          <li aria-hidden="true">/</li>
          <li>
            <Link href={`${base}/${server.slug}`} aria-current="page">
              {server.name}
            </Link>
          </li>
        </ol>
      </nav>
      <div className="mb-4 flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h1 className="min-w-0 text-2xl font-semibold text-slate-900 wrap-anywhere">{server.name}</h1>
        {server.disabledAt ? (
          <span className="badge badge-warning" data-testid="server-off">
            {t('off')}
          </span>
        ) : null}
      </div>
      {typeof added === 'string' ? (
        <div className="alert alert-success mb-4" role="status" data-testid="server-added">
          {t('server.added')}
        </div>
      ) : null}
      {server.disabledAt ? (
        <div className="alert alert-error mb-6" role="status" data-testid="server-disabled">
          {t('server.disabled')}
        </div>
      ) : null}

      <Section id="address" title={t('server.address.title')}>
        <p className="mb-2 text-sm text-slate-600">{t('server.address.body')}</p>
        <code className="block break-all rounded-md bg-slate-100 p-3 text-sm" data-testid="server-resource">
          {server.resource}
        </code>
        <CopyButton text={server.resource} label={t('server.address.copy')} />
      </Section>

      <Section id="upstream" title={t('server.upstream.title')}>
        <dl className="mb-4 grid grid-cols-1 gap-x-4 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
          <dt className="font-medium text-slate-700">{t('server.upstream.url')}</dt>
          <dd className="break-all" data-testid="server-url">
            {server.url}
          </dd>
          <dt className="font-medium text-slate-700">{t('server.upstream.status')}</dt>
          <dd>
            <ServerStatus server={server} showChecked={false} />
          </dd>
          <dt className="font-medium text-slate-700">{t('server.upstream.checked')}</dt>
          <dd>{server.checkedAt ? <When value={server.checkedAt} /> : t('server.upstream.never')}</dd>
        </dl>
        <p className="mb-2 text-sm text-slate-600">{t('server.refresh.description')}</p>
        <ActionForm action={refreshToolsAction} org={org} submitLabel={t('server.refresh.submit')} variant="secondary" testId="refresh-tools">
          <input type="hidden" name="server" value={server.slug} />
        </ActionForm>
      </Section>

      <Section id="tools" title={t('tools.title')}>
        <p className="mb-1 max-w-3xl text-sm text-slate-600">{t('tools.description')}</p>
        <p className="mb-3 max-w-3xl text-sm text-slate-600">{t('tools.permissionHint')}</p>
        {tools.length === 0 ? (
          <p className="text-sm text-slate-600" data-testid="tools-empty">
            {t('tools.empty')}
          </p>
        ) : (
          <ToolsForm action={toolAction} org={org} server={server.slug} testId="tools-form">
            <ToolsTable t={t} tools={tools} />
          </ToolsForm>
        )}
      </Section>

      <Section id="permissions" title={t('server.permissions.title')}>
        <p className="mb-2 max-w-3xl text-sm text-slate-600">{t('server.permissions.body')}</p>
        <p className="text-sm">
          <Link href={`/console/${org}/teams`} data-testid="server-permissions-link">
            {t('server.permissions.link', { server: visibleText(server.name) })}
          </Link>
        </p>
      </Section>

      {server.credentialKind === 'oauth' ? (
        <Section id="credential" title={t('credential.title')}>
          <p className="mb-3 max-w-3xl text-sm text-slate-600" data-testid="server-credential">
            {t('credential.oauth')}
          </p>
          <p className="mb-3 text-sm">
            <a className="btn btn-secondary" href={`/console/gateway/connect/${server.id}`} data-testid="server-connect">
              {t('credential.connectYours')}
            </a>
          </p>
          <h3 className="mb-2 text-sm font-semibold">{t('credential.connected')}</h3>
          {connections.length === 0 ? (
            <p className="text-sm text-slate-600" data-testid="server-connections-empty">
              {t('credential.nobodyConnected')}
            </p>
          ) : (
            <ul className="grid gap-1 text-sm" data-testid="server-connections">
              {connections.map((connection) => (
                <li key={connection.userId} className="wrap-anywhere">
                  {t.rich('credential.connectedAt', { email: visibleText(connection.email), when: () => <When value={connection.connectedAt} /> })}
                </li>
              ))}
            </ul>
          )}
        </Section>
      ) : (
      <Section id="credential" title={t('credential.title')}>
        <p className="mb-3 text-sm text-slate-600 wrap-anywhere" data-testid="server-credential">
          {server.credentialKind === 'header' && server.credentialHeader ? t('credential.current', { header: server.credentialHeader }) : t('credential.none')}
        </p>
        <h3 className="mb-2 text-sm font-semibold">{server.credentialKind === 'header' ? t('credential.replace') : t('credential.set')}</h3>
        <div className="max-w-xl">
          <ActionForm action={setCredentialAction} org={org} submitLabel={t('credential.save')} testId="set-credential">
            <input type="hidden" name="server" value={server.slug} />
            <CredentialHeaderFields />
          </ActionForm>
        </div>
        {server.credentialKind === 'header' ? (
          <div className="mt-4">
            <ActionForm
              action={removeCredentialAction}
              org={org}
              submitLabel={t('credential.remove')}
              variant="secondary"
              confirm={t('credential.removeConfirm', { name: server.name })}
              confirmLabel={t('credential.removeConfirmLabel')}
              testId="remove-credential"
            >
              <input type="hidden" name="server" value={server.slug} />
            </ActionForm>
          </div>
        ) : null}
      </Section>
      )}

      <Section id="limits" title={t('limits.title')}>
        <p className="mb-3 text-sm text-slate-600" data-testid="server-limits">
          {t('limits.current', { seconds: limits.timeoutSeconds, kb: limits.maxResponseKb, calls: limits.maxConcurrentCalls })}
        </p>
        <div className="max-w-xl">
          <ActionForm action={setLimitsAction} org={org} submitLabel={t('limits.save')} testId="set-limits" keepValues>
            <input type="hidden" name="server" value={server.slug} />
            <LimitFields values={limits} />
          </ActionForm>
        </div>
      </Section>

      <section className="panel mb-6 border-red-200" aria-labelledby="lifecycle-heading" data-testid="server-lifecycle">
        <h2 id="lifecycle-heading" className="mb-1 font-semibold text-red-800">
          {t('server.lifecycle.title')}
        </h2>
        <p className="mb-3 text-sm text-slate-600">{server.disabledAt ? t('server.lifecycle.offDescription') : t('server.lifecycle.onDescription')}</p>
        <ActionForm action={setServerDisabledAction} org={org} submitLabel={server.disabledAt ? t('server.lifecycle.turnOn') : t('server.lifecycle.turnOff')} variant="secondary" inline testId="set-server-disabled">
          <input type="hidden" name="server" value={server.slug} />
          <input type="hidden" name="disabled" value={server.disabledAt ? 'false' : 'true'} />
        </ActionForm>
        <h3 className="mb-1 mt-6 font-semibold text-red-800">{t('server.lifecycle.remove')}</h3>
        <p className="mb-3 text-sm text-slate-600">{t('server.lifecycle.removeDescription')}</p>
        <div className="max-w-xl">
          <ActionForm
            action={removeServerAction}
            org={org}
            submitLabel={t('server.lifecycle.remove')}
            variant="danger"
            confirm={t('server.lifecycle.removeConfirm', { name: server.name })}
            confirmLabel={t('server.lifecycle.removeConfirmLabel')}
            testId="remove-server"
          >
            <input type="hidden" name="server" value={server.slug} />
            <Field label={t('server.lifecycle.typeSlug', { slug: server.slug })} name="confirmSlug" autoComplete="off" spellCheck={false} required />
          </ActionForm>
        </div>
      </section>
    </>
  );
}

/** Upstream text (a title, a description, a schema) as text: React escapes it; invisible formatting is shown as such. */
function UpstreamText({ value, className }: { value: string; className?: string }) {
  return <span className={`whitespace-pre-wrap wrap-anywhere ${className ?? ''}`}>{visibleText(value)}</span>;
}

function Definition({ t, definition }: { t: Translator<'console.servers'>; definition: ToolDefinition }) {
  const fields = (['title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const).filter((field) => definition[field] !== undefined);
  return (
    <details className="mt-2 text-xs" data-testid="tool-definition">
      <summary className="cursor-pointer text-slate-700">{t('tools.definition')}</summary>
      <dl className="mt-1 grid gap-1">
        {fields.map((field) => {
          const value = definition[field];
          return (
            <div key={field}>
              <dt className="font-semibold text-slate-700">{t('tools.field', { field })}</dt>
              <dd>
                <pre className="whitespace-pre-wrap break-all rounded bg-slate-100 p-2">{visibleText(typeof value === 'string' ? value : JSON.stringify(value, null, 2))}</pre>
              </dd>
            </div>
          );
        })}
      </dl>
    </details>
  );
}

function Changes({ t, tool }: { t: Translator<'console.servers'>; tool: GatewayToolRow }) {
  const changes = definitionChanges(tool.approvedDefinition as ToolDefinition | null, tool.offeredDefinition as ToolDefinition);
  return (
    <details open className="mt-2 text-xs" data-testid="tool-changes">
      <summary className="cursor-pointer font-semibold text-red-800">{t('tools.changes')}</summary>
      <dl className="mt-1 grid gap-2">
        {changes.map((change) => (
          <div key={change.field} data-field={change.field}>
            <dt className="font-semibold text-slate-700">{t('tools.field', { field: change.field })}</dt>
            <dd className="grid gap-1">
              <span className="text-slate-600">{t('tools.before')}</span>
              <pre className="whitespace-pre-wrap break-all rounded bg-red-50 p-2" data-testid="change-before">
                {change.before === '' ? t('tools.noValue') : visibleText(change.before)}
              </pre>
              <span className="text-slate-600">{t('tools.after')}</span>
              <pre className="whitespace-pre-wrap break-all rounded bg-green-50 p-2" data-testid="change-after">
                {change.after === '' ? t('tools.noValue') : visibleText(change.after)}
              </pre>
            </dd>
          </div>
        ))}
      </dl>
    </details>
  );
}

const STATE_BADGE: Record<string, string> = { pending: 'badge badge-warning', approved: 'badge', changed: 'badge badge-warning', removed: 'badge' };

/**
 * The tools, one row each, inside the page's one tools form (./tools-form.tsx): the row's level and permission, and
 * the digest of the definition shown, which an approval posts (a definition that changed again since is refused).
 */
function ToolsTable({ t, tools }: { t: Translator<'console.servers'>; tools: GatewayToolRow[] }) {
  const columns = [t('tools.columns.tool'), t('tools.columns.state'), t('tools.columns.proposed'), t('tools.columns.level'), t('tools.columns.permission')];
  const levels = RISK_LEVELS.map((level) => ({ value: level, label: t('levels.level', { level }) }));
  return (
    <DataTable testId="tools" columns={columns} actions>
      {tools.map((tool, index) => {
        const state = toolStateOf(tool);
        const offered = tool.offeredDefinition as ToolDefinition;
        const removed = state === 'removed';
        const row = `tool-${index}`;
        return (
          <tr key={tool.name} data-testid={`tool-${tool.name}`} data-state={state}>
            <td>
              <code className="break-all font-semibold">{tool.name}</code>
              {offered.title ? <UpstreamText value={offered.title} className="block font-medium" /> : null}
              {offered.description ? <UpstreamText value={offered.description} className="block text-xs text-slate-600" /> : null}
              <Definition t={t} definition={offered} />
            </td>
            <td>
              <span className={STATE_BADGE[state]} data-testid="tool-state">
                {t('tools.state', { state })}
              </span>
              {state === 'changed' ? <Changes t={t} tool={tool} /> : null}
            </td>
            <td className="text-sm">{t('levels.level', { level: tool.proposedLevel })}</td>
            <td>
              {removed ? (
                <span className="text-sm">{t('levels.level', { level: tool.riskLevel })}</span>
              ) : (
                <>
                  <label htmlFor={`${row}-level`} className="sr-only">
                    {t('tools.levelOf', { tool: tool.name })}
                  </label>
                  <select id={`${row}-level`} name={`level:${tool.name}`} defaultValue={tool.riskLevel} className="input" data-testid="tool-level">
                    {levels.map((level) => (
                      <option key={level.value} value={level.value}>
                        {level.label}
                      </option>
                    ))}
                  </select>
                </>
              )}
            </td>
            <td>
              {removed ? (
                <code className="text-sm">{tool.permission}</code>
              ) : (
                <>
                  <label htmlFor={`${row}-permission`} className="sr-only">
                    {t('tools.permissionOf', { tool: tool.name })}
                  </label>
                  <input
                    id={`${row}-permission`}
                    name={`permission:${tool.name}`}
                    defaultValue={tool.permission}
                    maxLength={64}
                    autoComplete="off"
                    spellCheck={false}
                    className="input w-36 font-mono text-sm"
                    data-enter={`${row}-save-permission`}
                    data-testid="tool-permission"
                  />
                </>
              )}
            </td>
            <td>
              {removed ? null : (
                <div className="flex flex-wrap gap-2">
                  <input type="hidden" name={`digest:${tool.name}`} value={tool.offeredDigest} />
                  {state === 'pending' || state === 'changed' ? (
                    <ToolButton intent={`approve:${tool.name}`} label={t('tools.approveTool', { tool: tool.name })} variant="primary" testId="tool-approve">
                      {t('tools.approve')}
                    </ToolButton>
                  ) : (
                    <ToolButton intent={`level:${tool.name}`} label={t('tools.saveLevelOf', { tool: tool.name })} testId="tool-save-level">
                      {t('tools.saveLevel')}
                    </ToolButton>
                  )}
                  <ToolButton intent={`permission:${tool.name}`} id={`${row}-save-permission`} label={t('tools.savePermissionOf', { tool: tool.name })} testId="tool-save-permission">
                    {t('tools.savePermission')}
                  </ToolButton>
                </div>
              )}
              <ToolOutcome tool={tool.name} />
            </td>
          </tr>
        );
      })}
    </DataTable>
  );
}
