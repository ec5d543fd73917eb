// The operator CLI (`npm run portico -- <noun> <verb> [options]`): the commands' implementations, for people with
// local authority on the server machine. What each takes and says in its help is in ./catalog.ts (a command there
// without an implementation here, or the reverse, fails test/console/cli.test.ts). They run in the CLI's own process
// on the database, or inside the running server when one holds the data folder (./control-socket.ts).
import { deleteAccount, disableAccount, enableAccount } from '../accounts/credentials';
import { addMember } from '../organizations/memberships';
import { createOrganization, findOrganizationBySlug, listOrganizations, RESERVED_ORG_SLUGS, type MembershipRole, type Organization } from '../organizations/organizations';
import { ACCOUNT_LINK_TTL_SECONDS, accountLinkUrl, issueAccountLink } from '../accounts/account-links';
import { grantPersonPermissionCommand, inviteMemberCommand, removeMemberCommand, revokePersonPermissionCommand, type MemberCommandContext } from '../organizations/member-commands';
import { addTeamMemberCommand, createTeamCommand, grantTeamScopeCommand, revokeTeamScopeCommand } from '../organizations/team-commands';
import { listTeams } from '../organizations/teams';
import { Refusal } from '../refusals/refusal';
import { WEBHOOK_COMMANDS } from './webhooks';
import { DOMAIN_COMMANDS } from './domains';
import { SERVER_COMMANDS } from './servers';
import { AGENT_COMMANDS } from './agents';
import { env } from '../env';
import { enqueueMail } from '../deliveries/channels/mail';
import { createUser, findUserByEmail } from '../accounts/users';
import { appEnvironmentLines } from '../clients/app-environment';
import { issueSurfaceSecret } from '../clients/surface';
import { addAppPermission, setAppBackchannelLogout, setAppNonceWithoutPkce } from '../clients/app-commands';
import { backchannelLogoutOf, validateBackchannelLogoutUri } from '../clients/backchannel-logout';
import { listPermissionCatalog } from '../clients/permission-catalog';
import { addPostLogoutRedirectUri, appClientRegistration, appSlugsOf, APP_PROFILES, DEFAULT_ID_TOKEN_ALG, isAppProfile, ID_TOKEN_ALGS, isIdTokenAlg, assertPublishOriginAvailable, createApp, deleteApp, findAppListing, listApps, PublishOriginTaken, RedirectOriginTaken, removePostLogoutRedirectUri, setAppDisabled } from '../clients/apps';
import { validateAppOrigin, validatePostLogoutRedirectUri, validateRedirectUri, validateSlug } from '../clients/validation';
import { recordAuditEvent, type AuditRecord } from '../audit/events';
import type { Queryable } from '../db/client';
import { slugFromName } from '../util/slug';
import { terminalText } from '../util/visible-text';
import { CommandError, printList, UsageError, type CliContext, type Command } from './command';
import type { OrgOperationContext } from '../organizations/org-operation';
import { asOperator, organizationOfApp } from './org-scope';
import { APPROVAL_COMMANDS } from './approvals';
import { commandHelp, parseCommandLine } from './catalog';
import { AUDIT_COMMANDS } from './audit';

export { CommandError, UsageError, type CliContext, type Command };

/**
 * The CLI's one answer to a refusal: its English words on stderr (exit 1). A domain command's refusal (not a member,
 * the last owner, a conflict) reads as it is, after the command's name for its field when it is about one (`fields`);
 * the broker's and the central's read "Refused: …".
 */
function refusalAnswer(error: unknown, fields: Command['fields'] = {}): string | undefined {
  if (!(error instanceof Refusal)) return undefined;
  if (error.domain === 'approvals' || error.domain === 'central') return `Refused: ${error.message}`;
  const field = error.field !== undefined && Object.hasOwn(fields, error.field) ? fields[error.field] : undefined;
  return field ? `${field}: ${error.message}` : error.message;
}

function audit(ctx: CliContext, db: Queryable, record: Omit<AuditRecord, 'actor'>) {
  return recordAuditEvent(db, { ...record, actor: { type: 'operator_cli', label: ctx.operator } });
}

function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value.trim();
}

function orThrow<T>(result: { ok: true; value: T } | { ok: false; error: string }): T {
  if (!result.ok) throw new UsageError(result.error);
  return result.value;
}

async function organization(ctx: CliContext, slug: string) {
  const org = await findOrganizationBySlug(ctx.db, slug);
  if (!org) throw new CommandError(`No organization has the slug "${slug}". List them with: npm run portico -- orgs list`);
  return org;
}

async function person(ctx: CliContext, email: string) {
  const user = await findUserByEmail(ctx.db, email);
  if (!user) throw new CommandError(`No person has the email "${email}".`);
  return user;
}

const ROLES: readonly MembershipRole[] = ['owner', 'admin', 'member'];

/** The organization commands' context with the CLI's local authority: its events are operator_cli's. */
function orgCommands(operation: OrgOperationContext) {
  return { tx: operation.tx, org: operation.org, audit: operation.audit };
}

async function teamNamed(ctx: CliContext, org: Organization, name: string) {
  const team = (await listTeams(ctx.db, org.id)).find((row) => row.team.name.toLowerCase() === name.toLowerCase())?.team;
  if (!team) throw new CommandError(`${org.slug} has no team "${name}". List them in the console, or create it with: npm run portico -- teams create --org ${org.slug} --name <name>`);
  return team;
}

async function orgApp(ctx: CliContext, org: Organization, reference: string) {
  const listing = (await listApps(ctx.db, org.slug)).find((row) => row.app.slug === reference || row.app.id === reference);
  if (!listing) throw new CommandError(`${org.slug} has no app "${reference}". List them with: npm run portico -- apps list --org ${org.slug}`);
  return listing;
}

function teamScopeCommand(verb: 'grant' | 'revoke'): Command {
  return {
    async run(ctx, values) {
      const org = await organization(ctx, required(values, 'org'));
      const team = await teamNamed(ctx, org, required(values, 'team'));
      const app = await orgApp(ctx, org, required(values, 'app'));
      const scope = required(values, 'scope');
      await asOperator(ctx, org, (operation) =>
        verb === 'grant' ? grantTeamScopeCommand(orgCommands(operation), { teamId: team.id, appId: app.app.id, scope }) : revokeTeamScopeCommand(orgCommands(operation), { teamId: team.id, appId: app.app.id, scope }),
      );
      ctx.out(verb === 'grant' ? `${terminalText(team.name)} now holds ${scope} on ${terminalText(app.app.name)}.` : `${terminalText(team.name)} no longer holds ${scope} on ${terminalText(app.app.name)}.`);
    },
  };
}

function personScopeCommand(verb: 'grant' | 'revoke'): Command {
  return {
    async run(ctx, values) {
      const org = await organization(ctx, required(values, 'org'));
      const user = await person(ctx, required(values, 'email'));
      const app = await orgApp(ctx, org, required(values, 'app'));
      const input = { userId: user.id, appId: app.app.id, scope: required(values, 'scope') };
      await asOperator(ctx, org, (operation) => (verb === 'grant' ? grantPersonPermissionCommand(orgCommands(operation), input) : revokePersonPermissionCommand(orgCommands(operation), input)));
      ctx.out(verb === 'grant' ? `${user.email} now holds ${input.scope} on ${terminalText(app.app.name)} directly.` : `${user.email} no longer holds ${input.scope} on ${terminalText(app.app.name)} directly.`);
    },
  };
}

/** An app named as <org>/<app> (its org in the reference must be its own). */
async function namedApp(ctx: CliContext, reference: string) {
  const [orgSlug] = reference.split('/');
  const listing = await findAppListing(ctx.db, reference);
  if (!listing || listing.orgSlug !== orgSlug || !reference.includes('/')) throw new CommandError(`No app matches "${reference}". Name it as <org>/<app>; list them with: npm run portico -- apps list`);
  return listing;
}

function accountSwitch(disabled: boolean): Command {
  return {
    async run(ctx, values) {
      const user = await person(ctx, required(values, 'email'));
      const changed = await ctx.db.transaction(async (tx) => {
        const done = disabled ? await disableAccount(tx, user.id) : await enableAccount(tx, user.id);
        if (done) await audit(ctx, tx, { orgId: null, action: disabled ? 'user.disabled' : 'user.enabled', subject: { type: 'person', id: user.id, label: user.email } });
        return done;
      });
      if (!changed) throw new CommandError(`${terminalText(user.email)} is ${disabled ? 'disabled' : 'enabled'} already.`);
      ctx.out(disabled ? `Disabled ${terminalText(user.email)}: every session and grant ended; the apps were told.` : `Enabled ${terminalText(user.email)}: they sign in anew.`);
    },
  };
}

function appSwitch(disabled: boolean): Command {
  return {
    async run(ctx, values) {
      const listing = await namedApp(ctx, required(values, 'app'));
      const changed = await asOperator(ctx, await organizationOfApp(ctx, listing.app), async ({ tx, audit: record }) => {
        if (!(await setAppDisabled(tx, listing.app.id, disabled))) return false;
        await record({ action: disabled ? 'app.disabled' : 'app.enabled', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, clientId: listing.clientId });
        return true;
      }, 'at_most_one');
      const name = `${listing.orgSlug}/${listing.app.slug}`;
      if (!changed) throw new CommandError(disabled ? `${name} is off already.` : `${name} is on already.`);
      ctx.out(disabled ? `${name} is off: sign-ins are refused with a page that says so, and its clients get no new tokens.` : `${name} is on again.`);
    },
  };
}

/** The member commands with the CLI's local authority: it may transfer ownership; its events are operator_cli's. */
function memberCommands(ctx: CliContext, operation: OrgOperationContext): MemberCommandContext {
  return {
    tx: operation.tx,
    org: operation.org,
    mayTransferOwnership: true,
    issuer: ctx.issuer,
    invitationDays: env().PORTICO_INVITATION_DAYS,
    audit: operation.audit,
    queueMail: (message) => enqueueMail(operation.tx, ctx.atRestKey, message),
  };
}

export const COMMANDS: Record<string, Record<string, Command>> = {
  orgs: {
    list: {
      async run(ctx) {
        const orgs = await listOrganizations(ctx.db);
        if (orgs.length === 0) ctx.out('No organizations yet: create one with orgs create.');
        printList(ctx, ['SLUG', 'NAME'], orgs.map((org) => [org.slug, terminalText(org.name)]));
      },
    },
    create: {
      async run(ctx, values) {
        const slug = orThrow(validateSlug(required(values, 'slug')));
        if (RESERVED_ORG_SLUGS.has(slug)) throw new UsageError(`"${slug}" is the address of a console page: choose another slug.`);
        if (await findOrganizationBySlug(ctx.db, slug)) throw new CommandError(`An organization with the slug "${slug}" exists already.`);
        const org = await ctx.db.transaction(async (tx) => {
          const created = await createOrganization(tx, { slug, name: required(values, 'name') });
          await audit(ctx, tx, { orgId: created.id, action: 'org.created', subject: { type: 'organization', id: created.id, label: created.name } });
          return created;
        });
        ctx.out(`Created organization ${org.slug} (${org.id}).`);
      },
    },
  },
  users: {
    create: {
      async run(ctx, values) {
        const email = required(values, 'email');
        if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new UsageError('--email must be an email address');
        if (await findUserByEmail(ctx.db, email)) throw new CommandError(`A person with the email "${email}" exists already.`);
        // Nobody but the person sets a password: the account starts without one, and its person chooses it through a
        // single-use setup link (24 hours) that the operator hands over.
        const { user, token } = await ctx.db.transaction(async (tx) => {
          const created = await createUser(tx, { email, name: required(values, 'name'), passwordHash: null });
          const link = await issueAccountLink(tx, { purpose: 'setup', user: created });
          await audit(ctx, tx, { orgId: null, action: 'person.created', subject: { type: 'person', id: created.id, label: created.email }, details: { credential: 'setup_link' } });
          return { user: created, token: link.token };
        });
        ctx.out(`Created ${user.email} (${user.id}). It has no password yet.`);
        ctx.out('Give the person this single-use setup link (valid 24 hours); they choose their own password there:');
        ctx.out(`  ${accountLinkUrl(ctx.issuer, 'setup', token)}`);
      },
    },
    'reset-link': {
      async run(ctx, values) {
        const user = await person(ctx, required(values, 'email'));
        if (user.disabledAt) throw new CommandError(`${user.email} is disabled.`);
        // An account that never chose a password gets a new setup link instead (same page, longer validity).
        const purpose = user.passwordHash ? 'reset' : 'setup';
        const token = await ctx.db.transaction(async (tx) => {
          const link = await issueAccountLink(tx, { purpose, user });
          await audit(ctx, tx, { orgId: null, action: 'password.reset_link_issued', subject: { type: 'person', id: user.id, label: user.email }, details: { purpose } });
          return link.token;
        });
        const minutes = ACCOUNT_LINK_TTL_SECONDS[purpose] / 60;
        ctx.out(`Single-use ${purpose === 'reset' ? 'reset' : 'setup'} link for ${user.email} (valid ${minutes >= 60 ? `${minutes / 60} hours` : `${minutes} minutes`}; any earlier one stops working):`);
        ctx.out(`  ${accountLinkUrl(ctx.issuer, purpose, token)}`);
        ctx.out('Give it to the person only: whoever opens it chooses the password. Using it signs them out everywhere.');
      },
    },
    disable: accountSwitch(true),
    enable: accountSwitch(false),
    delete: {
      async run(ctx, values) {
        const user = await person(ctx, required(values, 'email'));
        if (values.yes !== true && !(await ctx.confirm(`Delete the account ${terminalText(user.email)} for good, with its memberships, sign-in factors and agents?`))) {
          throw new CommandError('Not confirmed: nothing was changed. (Without a terminal, pass --yes.)');
        }
        const outcome = await ctx.db.transaction(async (tx) => {
          const deletion = await deleteAccount(tx, user.id);
          // The trail outlives the account: it names the person by the address they had.
          if (deletion.deleted) await audit(ctx, tx, { orgId: null, action: 'user.deleted', subject: { type: 'person', id: user.id, label: user.email } });
          return deletion;
        });
        if (!outcome.deleted) throw new CommandError(`${terminalText(user.email)} is the only owner of ${outcome.onlyOwnerOf.map(terminalText).join(', ')}: make someone else an owner there first.`);
        ctx.out(`Deleted ${terminalText(user.email)}: every session and grant ended; the apps were told.`);
      },
    },
  },
  members: {
    invite: {
      async run(ctx, values) {
        const role = (typeof values.role === 'string' ? values.role : 'member') as MembershipRole;
        if (!ROLES.includes(role)) throw new UsageError('--role must be owner, admin or member');
        const email = required(values, 'email');
        if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new UsageError('--email must be an email address');
        const org = await organization(ctx, required(values, 'org'));
        const days = env().PORTICO_INVITATION_DAYS;
        // The link goes to the invitee by mail only: whoever held it could create the account.
        const invitation = await asOperator(ctx, org, (operation) => inviteMemberCommand(memberCommands(ctx, operation), { email, role }));
        ctx.out(`Invitation to ${invitation.email} queued (${role} of ${org.slug}, valid ${days} days). A running Portico mails it at once;`);
        ctx.out('with none running, it goes out when the server starts. The link is sent to the invitee only.');
      },
    },
    add: {
      // Local authority only: adds an account that exists (its person chose its password) without an invitation.
      async run(ctx, values) {
        const role = (typeof values.role === 'string' ? values.role : 'member') as MembershipRole;
        if (!ROLES.includes(role)) throw new UsageError('--role must be owner, admin or member');
        const org = await organization(ctx, required(values, 'org'));
        const user = await person(ctx, required(values, 'email'));
        await asOperator(ctx, org, async (operation) => {
          await addMember(operation.tx, { orgId: org.id, userId: user.id, role });
          await operation.audit({ action: 'member.added', subject: { type: 'person', id: user.id, label: user.email }, details: { role } });
        });
        ctx.out(`${user.email} is now ${role} of ${org.slug}.`);
      },
    },
    remove: {
      async run(ctx, values) {
        const org = await organization(ctx, required(values, 'org'));
        const user = await person(ctx, required(values, 'email'));
        const result = await asOperator(ctx, org, (operation) => removeMemberCommand(memberCommands(ctx, operation), user.id));
        ctx.out(`Removed ${user.email} from ${org.slug}; ${result.grantsRevoked} grant(s) revoked. Sign-in to its apps is closed now;`);
        ctx.out('access tokens already issued stay valid until they expire (10 minutes at most).');
      },
    },
  },
  apps: {
    list: {
      async run(ctx, values) {
        const rows = await listApps(ctx.db, typeof values.org === 'string' ? values.org : undefined);
        if (rows.length === 0) ctx.out('No apps.');
        printList(ctx, ['APP', 'NAME', 'PUBLISHED AT', 'CLIENT ID'], rows.map((row) => [`${row.orgSlug}/${row.app.slug}`, terminalText(row.app.name), terminalText(row.app.publishOrigin), row.clientId]));
      },
    },
    create: {
      async run(ctx, values) {
        const org = await organization(ctx, required(values, 'org'));
        const name = required(values, 'name');
        const origin = orThrow(validateAppOrigin(required(values, 'origin')));
        const profile = typeof values.type === 'string' ? values.type : 'web';
        if (!isAppProfile(profile)) throw new UsageError(`--type must be ${APP_PROFILES.join(', ')}`);
        const uris = (Array.isArray(values['redirect-uri']) ? values['redirect-uri'] : []).map((uri) => orThrow(validateRedirectUri(String(uri), profile)));
        if (uris.length === 0) throw new UsageError('at least one --redirect-uri is required');
        const slug = orThrow(validateSlug(typeof values.slug === 'string' ? values.slug : slugFromName(name)));
        if ((await appSlugsOf(ctx.db, org.id)).has(slug)) {
          throw new CommandError(`${org.slug} already has an app with the slug "${slug}"; choose another with --slug.`);
        }
        const method = typeof values['auth-method'] === 'string' ? values['auth-method'] : 'client_secret_basic';
        if (method !== 'client_secret_basic' && method !== 'client_secret_post') throw new UsageError('--auth-method must be client_secret_basic or client_secret_post');
        if (profile !== 'web' && typeof values['auth-method'] === 'string') throw new UsageError('--auth-method is for web apps: a single-page or native app has no secret');
        const idTokenAlg = typeof values['id-token-alg'] === 'string' ? values['id-token-alg'] : DEFAULT_ID_TOKEN_ALG;
        if (!isIdTokenAlg(idTokenAlg)) throw new UsageError(`--id-token-alg must be ${ID_TOKEN_ALGS.join(' or ')}`);
        const created = await asOperator(ctx, org, async ({ tx, audit: record }) => {
          await assertPublishOriginAvailable(tx, { origin, issuer: ctx.issuer, orgId: org.id }).catch((error: unknown) => {
            throw error instanceof PublishOriginTaken ? new CommandError(error.message) : error;
          });
          const app = await createApp(tx, { orgId: org.id, slug, name, publishOrigin: origin, redirectUris: uris, idTokenAlg, profile, ...(profile === 'web' ? { tokenEndpointAuthMethod: method } : {}) }).catch((error: unknown) => {
            throw error instanceof RedirectOriginTaken ? new CommandError(error.message) : error;
          });
          await record({ action: 'app.created', subject: { type: 'app', id: app.app.id, label: app.app.name }, appId: app.app.id, clientId: app.clientId, details: { profile: app.profile, idTokenAlg } });
          // A server's secret: not made for a single-page or native app, which would ship it (the security tab makes one).
          return { ...app, surfaceSecret: app.profile === 'web' ? await issueSurfaceSecret(tx, app.app.id, ctx.atRestKey) : undefined };
        });
        const kind = { web: 'a web app (confidential client)', spa: 'a single-page app (public client: PKCE, no secret)', native: 'a native app (public client: PKCE, no secret)' }[profile];
        ctx.out(`Created app ${org.slug}/${slug}, ${kind}. Its ID tokens are signed with ${idTokenAlg}. Give the app these values (the secrets are shown only now):`);
        ctx.out('');
        for (const line of appEnvironmentLines({ issuer: ctx.issuer, clientId: created.clientId, clientSecret: created.clientSecret, appIdentity: created.app.identity, surfaceSecret: created.surfaceSecret, publicClient: profile !== 'web' })) {
          ctx.out(line);
        }
      },
    },
    permissions: {
      async run(ctx, values, positionals) {
        const action = positionals[0];
        if (action !== 'add' && action !== 'list') throw new UsageError('say add or list: apps permissions add --app <org>/<app> --scope <scope> --description <text>');
        const reference = required(values, 'app');
        const [orgSlug] = reference.split('/');
        const listing = await findAppListing(ctx.db, reference);
        if (!listing || listing.orgSlug !== orgSlug) throw new CommandError(`No app matches "${reference}". Name it as <org>/<app>; list them with: npm run portico -- apps list`);
        if (action === 'list') {
          for (const entry of await listPermissionCatalog(ctx.db, listing.app.id)) {
            const source = entry.baseline ? 'baseline' : [entry.declared ? 'declared' : '', entry.added ? 'added' : ''].filter(Boolean).join('+');
            ctx.out([entry.scope, source, entry.retired ? 'retired' : 'active', terminalText(entry.description)].join('\t'));
          }
          return;
        }
        const input = { scope: required(values, 'scope'), description: required(values, 'description') };
        await asOperator(ctx, await organizationOfApp(ctx, listing.app), ({ tx, audit: record }) => addAppPermission({ tx, audit: record }, listing, input));
        ctx.out(`${input.scope} is in the catalog of ${reference}.`);
      },
    },
    'logout-uris': {
      async run(ctx, values, positionals) {
        const action = positionals[0];
        if (action !== 'add' && action !== 'remove' && action !== 'list') throw new UsageError('say list, add or remove: apps logout-uris add --app <org>/<app> --uri <uri>');
        const listing = await namedApp(ctx, required(values, 'app'));
        if (action === 'list') {
          for (const uri of (await appClientRegistration(ctx.db, listing.clientId)).postLogoutRedirectUris) ctx.out(terminalText(uri));
          return;
        }
        const given = required(values, 'uri').trim();
        const checked = action === 'add' ? validatePostLogoutRedirectUri(given, (await appClientRegistration(ctx.db, listing.clientId)).profile) : { ok: true as const };
        if (!checked.ok) throw new CommandError(`--uri: ${checked.error}`);
        const changed = await asOperator(ctx, await organizationOfApp(ctx, listing.app), async ({ tx, audit: record }) => {
          const done = action === 'add' ? await addPostLogoutRedirectUri(tx, listing.clientId, given) : await removePostLogoutRedirectUri(tx, listing.clientId, given);
          if (done) {
            await record({ action: action === 'add' ? 'app.post_logout_redirect_uri_added' : 'app.post_logout_redirect_uri_removed', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, clientId: listing.clientId, details: { uri: given } });
          }
          return done;
        }, 'at_most_one');
        if (!changed) throw new CommandError(action === 'add' ? `${terminalText(given)} is registered already.` : `${terminalText(given)} is not registered.`);
        ctx.out(action === 'add' ? `Sign-outs of ${listing.orgSlug}/${listing.app.slug} may return to ${terminalText(given)}.` : `Removed ${terminalText(given)}.`);
      },
    },
    'backchannel-logout': {
      async run(ctx, values, positionals) {
        const action = positionals[0];
        if (action !== 'show' && action !== 'set' && action !== 'remove') throw new UsageError('say show, set or remove: apps backchannel-logout set --app <org>/<app> --uri <uri>');
        const listing = await namedApp(ctx, required(values, 'app'));
        if (action === 'show') {
          const setting = await backchannelLogoutOf(ctx.db, listing.clientId);
          ctx.out(setting ? `${terminalText(setting.uri)}\t${setting.sessionRequired ? 'sid required' : 'sid when known'}` : 'none');
          return;
        }
        const setting = action === 'set' ? { uri: required(values, 'uri').trim(), sessionRequired: values['no-sid'] !== true } : null;
        if (setting) {
          const checked = validateBackchannelLogoutUri(setting.uri);
          if (!checked.ok) throw new CommandError(`--uri: ${checked.error}`);
        }
        await asOperator(ctx, await organizationOfApp(ctx, listing.app), ({ tx, audit: record }) => setAppBackchannelLogout({ tx, audit: record }, listing, setting));
        ctx.out(setting ? `Logout tokens for ${listing.orgSlug}/${listing.app.slug} go to ${terminalText(setting.uri)}.` : `Logout tokens are no longer sent to ${listing.orgSlug}/${listing.app.slug}.`);
      },
    },
    pkce: {
      async run(ctx, values, positionals) {
        const action = positionals[0];
        if (action !== 'show' && action !== 'require' && action !== 'allow-nonce') throw new UsageError('say show, require or allow-nonce: apps pkce allow-nonce --app <org>/<app>');
        const listing = await namedApp(ctx, required(values, 'app'));
        if (action === 'show') {
          ctx.out((await appClientRegistration(ctx.db, listing.clientId)).nonceWithoutPkce ? 'PKCE or a nonce (relying parties that send a nonce but no PKCE may sign in)' : 'PKCE required');
          return;
        }
        const allowed = action === 'allow-nonce';
        await asOperator(ctx, await organizationOfApp(ctx, listing.app), ({ tx, audit: record }) => setAppNonceWithoutPkce({ tx, audit: record }, listing, allowed));
        ctx.out(allowed ? `Relying parties of ${listing.orgSlug}/${listing.app.slug} that send a nonce but no PKCE may sign in.` : `Every sign-in to ${listing.orgSlug}/${listing.app.slug} needs PKCE again.`);
      },
    },
    disable: appSwitch(true),
    enable: appSwitch(false),
    delete: {
      async run(ctx, values) {
        const listing = await namedApp(ctx, required(values, 'app'));
        ctx.out(`${listing.orgSlug}/${listing.app.slug}\t${terminalText(listing.app.name)}\t${terminalText(listing.app.publishOrigin)}\t${listing.clientId}`);
        if (values.yes !== true && !(await ctx.confirm(`Delete ${terminalText(listing.app.name)} (${listing.orgSlug}/${listing.app.slug}) for good, with its clients, grants and tokens?`))) {
          throw new CommandError('Not confirmed: nothing was changed. (Without a terminal, pass --yes.)');
        }
        const ended = await asOperator(ctx, await organizationOfApp(ctx, listing.app), async ({ tx, audit: record }) => {
          const result = await deleteApp(tx, listing.app.id);
          await record({ action: 'app.deleted', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, clientId: listing.clientId, details: { slug: listing.app.slug, grantsEnded: result.grants } });
          return result;
        });
        ctx.out(`Deleted ${listing.orgSlug}/${listing.app.slug}; ${ended.grants} grant(s) ended with their tokens. Access tokens already issued end within 10 minutes.`);
      },
    },
    env: {
      async run(ctx, _values, positionals) {
        const reference = positionals[0];
        if (!reference) throw new UsageError('name the app');
        const listing = await findAppListing(ctx.db, reference);
        if (!listing) throw new CommandError(`No app matches "${reference}". List them with: npm run portico -- apps list`);
        for (const line of appEnvironmentLines({ issuer: ctx.issuer, clientId: listing.clientId, appIdentity: listing.app.identity })) ctx.out(line);
      },
    },
  },
  teams: {
    create: {
      async run(ctx, values) {
        const org = await organization(ctx, required(values, 'org'));
        const team = await asOperator(ctx, org, (operation) => createTeamCommand(orgCommands(operation), required(values, 'name')));
        ctx.out(`Created team ${terminalText(team.name)} in ${org.slug}.`);
      },
    },
    'add-member': {
      async run(ctx, values) {
        const org = await organization(ctx, required(values, 'org'));
        const team = await teamNamed(ctx, org, required(values, 'team'));
        const user = await person(ctx, required(values, 'email'));
        await asOperator(ctx, org, (operation) => addTeamMemberCommand(orgCommands(operation), team.id, user.id));
        ctx.out(`${user.email} joined ${terminalText(team.name)}.`);
      },
    },
    grant: teamScopeCommand('grant'),
    revoke: teamScopeCommand('revoke'),
  },
  people: {
    grant: personScopeCommand('grant'),
    revoke: personScopeCommand('revoke'),
  },
  approvals: APPROVAL_COMMANDS,
  webhooks: WEBHOOK_COMMANDS,
  domains: DOMAIN_COMMANDS,
  servers: SERVER_COMMANDS,
  agents: AGENT_COMMANDS,
  audit: AUDIT_COMMANDS,
};

/** Runs one command line; returns the process exit code (0 done or help, 1 failed, 2 misused). */
export async function runCli(argv: string[], ctx: CliContext, err: (line: string) => void): Promise<number> {
  const line = parseCommandLine(argv);
  if (line.kind === 'help') {
    ctx.out(line.text);
    return 0;
  }
  if (line.kind === 'misuse') {
    err(line.text);
    return 2;
  }
  const command = COMMANDS[line.noun]![line.verb]!;
  try {
    await command.run(ctx, line.values, line.positionals);
    return 0;
  } catch (error) {
    if (error instanceof CommandError) {
      err(error.message);
      return 1;
    }
    const refused = refusalAnswer(error, command.fields);
    if (refused !== undefined) {
      err(refused);
      return 1;
    }
    if (error instanceof UsageError) {
      err(`${error.message}\n\n${commandHelp(line.noun, line.verb)}`);
      return 2;
    }
    throw error;
  }
}
