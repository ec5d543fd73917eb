import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isActiveMember } from '../../lib/organizations/memberships';
import { findOrganizationBySlug } from '../../lib/organizations/organizations';
import { createUser } from '../../lib/accounts/users';
import { approvalStatusFor, createApprovalRequest } from '../../lib/approvals/broker';
import { sql } from 'drizzle-orm';
import { findUserByEmail } from '../../lib/accounts/users';
import { runCli } from '../../lib/cli';
import { appClientRegistration, findAppListing } from '../../lib/clients/apps';
import { verifyClientSecret } from '../../lib/clients/secrets';
import { surfaceSecretOf } from '../../lib/clients/surface';
import { auditEvents } from '../../lib/db/schema';
import { childProcessEnvironment } from '../../lib/env';
import { openTestDatabase, postgresEnvironment, type TestDatabase } from '../support/databases';
import { cliRunner } from '../support/cli';

describe('operator CLI', () => {
  let database: TestDatabase;
  const atRestKey = randomBytes(32);
  /** What the operator answers at the terminal, in order (none left: no). */
  const answers: boolean[] = [];
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => database.close());

  const run = (...argv: string[]) => cliRunner(database.db, atRestKey, answers)(...argv);

  it('creates an app and prints its identity values, secrets once; apps env prints them again without the secrets', async () => {
    expect((await run('orgs', 'create', '--slug', 'acme', '--name', 'Acme')).code).toBe(0);
    const created = await run('apps', 'create', '--org', 'acme', '--name', 'Billing Portal', '--origin', 'https://billing.acme.test', '--redirect-uri', 'https://billing.acme.test/cb');
    expect(created.code).toBe(0);
    expect(created.out).toContain('PORTICO_ISSUER=https://id.example.test');
    const clientId = /PORTICO_CLIENT_ID=(\S+)/.exec(created.out)?.[1];
    const secret = /PORTICO_CLIENT_SECRET=(\S+)/.exec(created.out)?.[1];
    const identity = /PORTICO_APP_IDENTITY=(urn:portico:app:\S+)/.exec(created.out)?.[1];
    expect(clientId && secret && identity).toBeTruthy();
    expect(await verifyClientSecret(database.db, clientId!, secret!)).toBe(true);
    const surfaceSecret = /PORTICO_SURFACE_SECRET=(pss_\S+)/.exec(created.out)?.[1];
    const app = await findAppListing(database.db, clientId!);
    expect(surfaceSecret).toBe(await surfaceSecretOf(database.db, app!.app.id, atRestKey));

    for (const reference of ['acme/billing-portal', clientId!]) {
      const env = await run('apps', 'env', reference);
      expect(env.code).toBe(0);
      expect(env.out).toContain(`PORTICO_CLIENT_ID=${clientId}`);
      expect(env.out).toContain(`PORTICO_APP_IDENTITY=${identity}`);
      expect(env.out).not.toContain(secret!);
      expect(env.out).not.toContain(surfaceSecret!);
    }
    expect((await run('apps', 'list', '--org', 'acme')).out).toContain(`acme/billing-portal\tBilling Portal\thttps://billing.acme.test\t${clientId}`);
    const events = await database.db.select().from(auditEvents).orderBy(auditEvents.id);
    expect(events.map((e) => [e.action, e.actorType, e.actorLabel])).toEqual([
      ['org.created', 'operator_cli', 'cli:test@host'],
      ['app.created', 'operator_cli', 'cli:test@host'],
    ]);
  });

  it('refuses bad input with a message and the usage, changing nothing', async () => {
    const bad = await run('apps', 'create', '--org', 'acme', '--name', 'X', '--origin', 'http://x.example', '--redirect-uri', 'https://x.example/cb');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/must use https/);
    expect(bad.err).toMatch(/Usage: npm run portico -- apps create/);
    const wildcard = await run('apps', 'create', '--org', 'acme', '--name', 'Y', '--origin', 'https://y.example', '--redirect-uri', 'https://*.y.example/cb');
    expect(wildcard.err).toMatch(/wildcards are not allowed/);
    // Its column names and the one app created before: nothing was added.
    expect((await run('apps', 'list', '--org', 'acme')).out.split('\n')).toEqual([expect.stringMatching(/^APP\tNAME/), expect.stringMatching(/^acme\//)]);
    expect((await run('apps', 'create', '--org', 'nope', '--name', 'Z', '--origin', 'https://z.example', '--redirect-uri', 'https://z.example/cb')).code).toBe(1);
    expect((await run('apps', 'frobnicate')).code).toBe(2);
    expect((await run('apps', 'list', '--bogus')).code).toBe(2);
  });

  it('adds and removes members; removal closes sign-in', async () => {
    const created = await run('users', 'create', '--email', 'Grace@Acme.test', '--name', 'Grace');
    // Nobody but the person sets a password: the CLI hands out a single-use setup link, never a password.
    expect(created.out).not.toMatch(/password:/i);
    expect(created.out).toMatch(/\/account\/password\/[A-Za-z0-9_-]{43}/);
    expect((await run('members', 'add', '--org', 'acme', '--email', 'grace@acme.test', '--role', 'admin')).code).toBe(0);
    const user = await findUserByEmail(database.db, 'grace@acme.test');
    const orgId = (await database.db.query.organizations.findFirst())!.id;
    expect(await isActiveMember(database.db, orgId, user!.id)).toBe(true);
    const removed = await run('members', 'remove', '--org', 'acme', '--email', 'grace@acme.test');
    expect(removed.code).toBe(0);
    expect(removed.out).toContain('10 minutes');
    expect(await isActiveMember(database.db, orgId, user!.id)).toBe(false);
    expect((await run('members', 'remove', '--org', 'acme', '--email', 'grace@acme.test')).code).toBe(1);
    expect((await run('members', 'add', '--org', 'acme', '--email', 'grace@acme.test', '--role', 'emperor')).code).toBe(2);
  });

  it('runs as `npm run portico` on the configured database', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'portico-cli-'));
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/portico.ts', 'orgs', 'list'], {
      env: childProcessEnvironment({ PORTICO_DATA_DIR: dataDir, ...postgresEnvironment(database.url) }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(0);
    const usage = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/portico.ts', 'nothing'], {
      env: childProcessEnvironment({ PORTICO_DATA_DIR: dataDir, ...postgresEnvironment(database.url) }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('Unknown command "nothing"');
    expect(usage.stderr).toContain('apps env');
    // Two processes, each opening (and, embedded, migrating) a database: slow on a busy machine.
  }, 150_000);

  it('answers --help, a command’s help and a misuse without any database, in plain words', () => {
    // A database nobody listens on: help must not need one.
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'scripts/portico.ts', ...args], {
        env: childProcessEnvironment({ PORTICO_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'portico-help-')), DATABASE_URL: 'postgres://nobody@127.0.0.1:1/nothing' }),
        encoding: 'utf8',
        timeout: 60_000,
      });
    const overview = cli('--help');
    expect(overview.status).toBe(0);
    expect(overview.stdout).toContain('Usage: npm run portico -- <command> [options]');
    expect(overview.stdout).toMatch(/approvals approve +Approve an access request/);
    expect(overview.stdout).not.toMatch(/(^|\s)portico (orgs|apps|approvals) /m);
    const create = cli('apps', 'create', '--help');
    expect(create.status).toBe(0);
    expect(create.stdout).toContain('Usage: npm run portico -- apps create --org <slug>');
    expect(create.stdout).toMatch(/--redirect-uri +where sign-ins return/);
    expect(create.stdout).toContain('Example: npm run portico -- apps create --org acme');
    const unknown = cli('apps', 'list', '--organisation', 'acme');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('Unknown option --organisation. This command takes --org.');
    expect(unknown.stderr).not.toContain('ERR_PARSE_ARGS');
    const missing = cli('apps', 'list', '--org');
    expect(missing.stderr).toContain('--org needs a value: --org <value>.');
    const verb = cli('apps', 'destroy');
    expect(verb.stderr).toContain('"apps" has no command "destroy"');
  }, 150_000);

  it('turns an app off and on, and deletes it only when confirmed, audited as the CLI', async () => {
    expect((await run('orgs', 'create', '--slug', 'life', '--name', 'Life')).code).toBe(0);
    expect((await run('apps', 'create', '--org', 'life', '--name', 'Short Lived', '--origin', 'https://short.life.test', '--redirect-uri', 'https://short.life.test/cb')).code).toBe(0);
    const listing = (await findAppListing(database.db, 'life/short-lived'))!;
    expect((await run('apps', 'disable', '--app', 'life/short-lived')).out).toContain('is off');
    expect((await findAppListing(database.db, 'life/short-lived'))!.app.disabledAt).not.toBeNull();
    const twice = await run('apps', 'disable', '--app', 'life/short-lived');
    expect(twice.code).toBe(1);
    expect(twice.err).toContain('off already');
    expect((await run('apps', 'enable', '--app', 'life/short-lived')).code).toBe(0);
    expect((await run('apps', 'disable', '--app', 'short-lived')).err).toContain('Name it as <org>/<app>');
    // Not confirmed (no terminal, no --yes): nothing is deleted.
    const unconfirmed = await run('apps', 'delete', '--app', 'life/short-lived');
    expect(unconfirmed.code).toBe(1);
    expect(await findAppListing(database.db, 'life/short-lived')).toBeDefined();
    answers.push(true);
    const deleted = await run('apps', 'delete', '--app', 'life/short-lived');
    expect(deleted.code).toBe(0);
    expect(await findAppListing(database.db, 'life/short-lived')).toBeUndefined();
    const events = await database.db.select().from(auditEvents).where(sql`${auditEvents.appId} = ${listing.app.id}`).orderBy(auditEvents.id);
    expect(events.map((event) => [event.action, event.actorType])).toEqual([
      ['app.created', 'operator_cli'],
      ['app.disabled', 'operator_cli'],
      ['app.enabled', 'operator_cli'],
      ['app.deleted', 'operator_cli'],
    ]);
  });

  it('registers, lists and removes an app’s sign-out return addresses, refusing a bad one', async () => {
    expect((await run('orgs', 'create', '--slug', 'bye', '--name', 'Bye')).code).toBe(0);
    expect((await run('apps', 'create', '--org', 'bye', '--name', 'Farewell', '--origin', 'https://farewell.bye.test', '--redirect-uri', 'https://farewell.bye.test/cb')).code).toBe(0);
    const added = await run('apps', 'logout-uris', 'add', '--app', 'bye/farewell', '--uri', 'https://farewell.bye.test/signed-out');
    expect(added.code).toBe(0);
    expect((await run('apps', 'logout-uris', 'add', '--app', 'bye/farewell', '--uri', 'https://farewell.bye.test/signed-out')).err).toContain('registered already');
    const bad = await run('apps', 'logout-uris', 'add', '--app', 'bye/farewell', '--uri', 'http://farewell.bye.test/out');
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain('--uri');
    // A relying party's base URL as it sends it (express-openid-connect: no path) is kept exactly, not refused for
    // not being in canonical form: end_session compares exactly.
    expect((await run('apps', 'logout-uris', 'add', '--app', 'bye/farewell', '--uri', 'http://127.0.0.1:4660')).code).toBe(0);
    expect((await run('apps', 'logout-uris', 'list', '--app', 'bye/farewell')).out.trim().split('\n')).toEqual(['https://farewell.bye.test/signed-out', 'http://127.0.0.1:4660']);
    const listing = (await findAppListing(database.db, 'bye/farewell'))!;
    expect((await appClientRegistration(database.db, listing.clientId)).postLogoutRedirectUris).toEqual(['https://farewell.bye.test/signed-out', 'http://127.0.0.1:4660']);
    expect((await run('apps', 'logout-uris', 'remove', '--app', 'bye/farewell', '--uri', 'https://farewell.bye.test/signed-out')).code).toBe(0);
    expect((await run('apps', 'logout-uris', 'remove', '--app', 'bye/farewell', '--uri', 'http://127.0.0.1:4660')).code).toBe(0);
    expect((await run('apps', 'logout-uris', 'list', '--app', 'bye/farewell')).out.trim()).toBe('');
  });

  it('creates an app whose ID tokens are RS256 unless --id-token-alg chooses ES256, refusing any other', async () => {
    expect((await run('orgs', 'create', '--slug', 'algs', '--name', 'Algs')).code).toBe(0);
    const plain = await run('apps', 'create', '--org', 'algs', '--name', 'Plain', '--origin', 'https://plain.algs.test', '--redirect-uri', 'https://plain.algs.test/cb');
    expect(plain.out).toContain('signed with RS256');
    const chosen = await run('apps', 'create', '--org', 'algs', '--name', 'Small', '--origin', 'https://small.algs.test', '--redirect-uri', 'https://small.algs.test/cb', '--id-token-alg', 'ES256');
    expect(chosen.out).toContain('signed with ES256');
    expect((await appClientRegistration(database.db, (await findAppListing(database.db, 'algs/plain'))!.clientId)).idTokenAlg).toBe('RS256');
    expect((await appClientRegistration(database.db, (await findAppListing(database.db, 'algs/small'))!.clientId)).idTokenAlg).toBe('ES256');
    const refused = await run('apps', 'create', '--org', 'algs', '--name', 'Weak', '--origin', 'https://weak.algs.test', '--redirect-uri', 'https://weak.algs.test/cb', '--id-token-alg', 'HS256');
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain('--id-token-alg must be RS256 or ES256');
    expect(await findAppListing(database.db, 'algs/weak')).toBeUndefined();
    // A single-page app: a public client, so no client secret and no server-only surface secret to ship in a bundle.
    const spa = await run('apps', 'create', '--org', 'algs', '--name', 'Pocket', '--origin', 'https://pocket.algs.test', '--redirect-uri', 'https://pocket.algs.test/cb', '--type', 'spa');
    expect(spa.code).toBe(0);
    expect(spa.out).toContain('a single-page app (public client: PKCE, no secret)');
    expect(spa.out).toContain('# PORTICO_CLIENT_SECRET: none');
    expect(spa.out).not.toContain('PORTICO_SURFACE_SECRET=');
    expect((await appClientRegistration(database.db, (await findAppListing(database.db, 'algs/pocket'))!.clientId)).profile).toBe('spa');
    // A native app's private-use scheme; a web app's is refused; --auth-method means nothing without a secret.
    expect((await run('apps', 'create', '--org', 'algs', '--name', 'Phone', '--origin', 'https://phone.algs.test', '--redirect-uri', 'com.algs.phone:/cb', '--type', 'native')).code).toBe(0);
    expect((await run('apps', 'create', '--org', 'algs', '--name', 'Web', '--origin', 'https://web.algs.test', '--redirect-uri', 'com.algs.web:/cb')).code).not.toBe(0);
    const mixed = await run('apps', 'create', '--org', 'algs', '--name', 'Mixed', '--origin', 'https://mixed.algs.test', '--redirect-uri', 'https://mixed.algs.test/cb', '--type', 'spa', '--auth-method', 'client_secret_post');
    expect(mixed.err).toContain('--auth-method is for web apps');
    expect(await findAppListing(database.db, 'algs/mixed')).toBeUndefined();
    expect((await run('apps', 'create', '--org', 'algs', '--name', 'Odd', '--origin', 'https://odd.algs.test', '--redirect-uri', 'https://odd.algs.test/cb', '--type', 'desktop')).err).toContain('--type must be web, spa, native');
  });

  it('sets, shows and removes an app’s back-channel logout URI, refusing a bad one, audited', async () => {
    expect((await run('orgs', 'create', '--slug', 'bcl', '--name', 'Bcl')).code).toBe(0);
    expect((await run('apps', 'create', '--org', 'bcl', '--name', 'Notify', '--origin', 'https://notify.bcl.test', '--redirect-uri', 'https://notify.bcl.test/cb')).code).toBe(0);
    expect((await run('apps', 'backchannel-logout', 'show', '--app', 'bcl/notify')).out.trim()).toBe('none');
    for (const uri of ['http://notify.bcl.test/logout', 'https://notify.bcl.test/logout#x', 'not a url']) {
      const bad = await run('apps', 'backchannel-logout', 'set', '--app', 'bcl/notify', '--uri', uri);
      expect(bad.code, uri).not.toBe(0);
      expect(bad.err).toContain('--uri');
    }
    expect((await run('apps', 'backchannel-logout', 'set', '--app', 'bcl/notify', '--uri', 'https://notify.bcl.test/logout')).code).toBe(0);
    expect((await run('apps', 'backchannel-logout', 'show', '--app', 'bcl/notify')).out.trim()).toBe('https://notify.bcl.test/logout\tsid required');
    expect((await run('apps', 'backchannel-logout', 'set', '--app', 'bcl/notify', '--uri', 'https://notify.bcl.test/logout')).err).toContain('registered already');
    expect((await run('apps', 'backchannel-logout', 'set', '--app', 'bcl/notify', '--uri', 'https://notify.bcl.test/logout', '--no-sid')).code).toBe(0);
    expect((await run('apps', 'backchannel-logout', 'show', '--app', 'bcl/notify')).out.trim()).toBe('https://notify.bcl.test/logout\tsid when known');
    expect((await run('apps', 'backchannel-logout', 'remove', '--app', 'bcl/notify')).code).toBe(0);
    expect((await run('apps', 'backchannel-logout', 'remove', '--app', 'bcl/notify')).err).toContain('No back-channel logout URI');
    const listing = (await findAppListing(database.db, 'bcl/notify'))!;
    const events = await database.db.select().from(auditEvents).where(sql`${auditEvents.appId} = ${listing.app.id}`).orderBy(auditEvents.id);
    expect(events.map((event) => event.action)).toEqual(['app.created', 'app.backchannel_logout_set', 'app.backchannel_logout_set', 'app.backchannel_logout_removed']);
  });

  it('disables and enables an account, audited', async () => {
    const email = `disable-${Date.now()}@cli.test`;
    expect((await run('users', 'create', '--email', email, '--name', 'Dee')).code).toBe(0);
    const disabled = await run('users', 'disable', '--email', email);
    expect(disabled.code).toBe(0);
    expect(disabled.out).toContain('every session and grant ended');
    expect((await run('users', 'disable', '--email', email)).err).toContain('disabled already');
    expect((await run('users', 'reset-link', '--email', email)).err).toContain('is disabled');
    expect((await run('users', 'enable', '--email', email)).code).toBe(0);
    expect((await run('users', 'enable', '--email', email)).err).toContain('enabled already');
    const events = await database.db.select().from(auditEvents).where(sql`${auditEvents.subjectLabel} = ${email}`).orderBy(auditEvents.id);
    expect(events.map((event) => event.action)).toEqual(expect.arrayContaining(['user.disabled', 'user.enabled']));
  });

  it('deletes an account, not while it is an organization’s only owner, audited', async () => {
    const stamp = Date.now();
    const [owner, heir] = [`owner-${stamp}@cli.test`, `heir-${stamp}@cli.test`];
    for (const email of [owner, heir]) expect((await run('users', 'create', '--email', email, '--name', 'Someone')).code).toBe(0);
    expect((await run('orgs', 'create', '--slug', `solo-${stamp}`, '--name', 'Solo')).code).toBe(0);
    expect((await run('members', 'add', '--org', `solo-${stamp}`, '--email', owner, '--role', 'owner')).code).toBe(0);
    const refused = await run('users', 'delete', '--email', owner, '--yes');
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain(`the only owner of solo-${stamp}`);
    expect(await findUserByEmail(database.db, owner)).toBeDefined();
    expect((await run('members', 'add', '--org', `solo-${stamp}`, '--email', heir, '--role', 'owner')).code).toBe(0);
    const deleted = await run('users', 'delete', '--email', owner, '--yes');
    expect(deleted.code, deleted.err).toBe(0);
    expect(await findUserByEmail(database.db, owner)).toBeUndefined();
    expect((await run('users', 'delete', '--email', owner, '--yes')).code).not.toBe(0);
    const events = await database.db.select().from(auditEvents).where(sql`${auditEvents.subjectLabel} = ${owner}`).orderBy(auditEvents.id);
    expect(events.map((event) => event.action)).toContain('user.deleted');
  });

  it('reads help only as an option, and no inherited name as a command', async () => {
    // "help" as a value is a value: the account is created.
    const named = await run('users', 'create', '--email', `help-${Date.now()}@cli.test`, '--name', 'help');
    expect(named.code).toBe(0);
    expect(named.out).toContain('Created');
    expect((await run('users', 'create', '--help')).out).toContain('Usage: npm run portico -- users create');
    for (const argv of [['constructor', 'name'], ['__proto__', 'x'], ['orgs', 'constructor'], ['orgs', 'toString']]) {
      const misuse = await run(...argv);
      expect(misuse.code, argv.join(' ')).toBe(2);
    }
  });

  it('has an implementation for every command in the catalog, and a catalog entry (help) for every implementation', async () => {
    const { CATALOG } = await import('../../lib/cli/catalog');
    const { COMMANDS } = await import('../../lib/cli');
    const names = (table: Record<string, Record<string, unknown>>) => Object.entries(table).flatMap(([noun, verbs]) => Object.keys(verbs).map((verb) => `${noun} ${verb}`)).sort();
    expect(names(COMMANDS)).toEqual(names(CATALOG));
  });

  it('approvals: lists, shows, and decides only after the operator confirms; a permanent request is the CLI’s to approve', async () => {
    expect((await run('orgs', 'create', '--slug', 'ops', '--name', 'Ops')).code).toBe(0);
    const org = (await findOrganizationBySlug(database.db, 'ops'))!;
    const created = await run('apps', 'create', '--org', 'ops', '--name', 'Vault', '--origin', 'https://vault.ops.test', '--redirect-uri', 'https://vault.ops.test/cb');
    const app = (await findAppListing(database.db, /PORTICO_CLIENT_ID=(\S+)/.exec(created.out)![1]!))!;
    const asker = await createUser(database.db, { email: 'asker@ops.test', name: 'Asker', passwordHash: 'x' });
    expect((await run('members', 'add', '--org', 'ops', '--email', 'asker@ops.test', '--role', 'member')).code).toBe(0);
    const ask = (durationSeconds: number | null) =>
      createApprovalRequest(database.db, { orgId: org.id, appId: app.app.id, subjectUserId: asker.id, clientId: 'c', kind: 'root_access', durationSeconds, reason: 'migration' }, { type: 'person', id: asker.id });
    const permanent = await ask(null);

    const listed = await run('approvals', 'list', '--org', 'ops');
    // A list starts with its column names (issue 56, item 9), then a tab-separated line per request.
    expect(listed.out.split('\n')[0]).toBe('REQUEST\tSTATE\tFOR\tAPP\tACCESS\tDURATION\tDECIDED IN');
    expect(listed.out).toContain(`${permanent.id}\tpending\tasker@ops.test\tVault\troot\tpermanent\tcli-only`);
    expect((await run('approvals', 'show', permanent.id)).out).toContain('PERMANENT');

    // No confirmation: nothing is decided.
    const unconfirmed = await run('approvals', 'approve', permanent.id);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.err).toContain('Not confirmed');
    expect((await approvalStatusFor(database.db, permanent.id, asker.id)).status).toBe('pending');

    answers.push(true);
    const approved = await run('approvals', 'approve', permanent.id);
    expect(approved.code).toBe(0);
    expect(approved.out).toContain('(permanent)');
    expect((await approvalStatusFor(database.db, permanent.id, asker.id)).status).toBe('approved');
    expect((await run('approvals', 'approve', permanent.id, '--yes')).err).toContain('approved already');

    const denied = await ask(3600);
    expect((await run('approvals', 'deny', denied.id, '--yes')).code).toBe(0);
    expect((await approvalStatusFor(database.db, denied.id, asker.id)).status).toBe('denied');

    answers.push(true);
    expect((await run('approvals', 'revoke', permanent.id)).out).toContain('Revoked grant');
    expect((await approvalStatusFor(database.db, permanent.id, asker.id)).status).toBe('grant_revoked');

    const decisions = await database.db.select().from(auditEvents).where(sql`${auditEvents.action} in ('approval.approved', 'approval.denied', 'approval.grant_revoked')`);
    expect(decisions.map((event) => [event.action, event.actorType, event.actorLabel])).toEqual([
      ['approval.approved', 'operator_cli', 'cli:test@host'],
      ['approval.denied', 'operator_cli', 'cli:test@host'],
      ['approval.grant_revoked', 'operator_cli', 'cli:test@host'],
    ]);
  });

  it('prints an agent’s text escaped, and the true access and duration right before the prompt', async () => {
    const org = (await findOrganizationBySlug(database.db, 'ops'))!;
    const app = (await findAppListing(database.db, 'ops/vault'))!;
    const asker = (await findUserByEmail(database.db, 'asker@ops.test'))!;
    // The reason tries to move the cursor up two lines, return, erase the line and reverse the text that follows.
    const reason = 'read-only check\u001b[2A\r\u001b[2Kaccess read for 900 seconds \u202Edetacilppa\u202C';
    const request = await createApprovalRequest(
      database.db,
      { orgId: org.id, appId: app.app.id, subjectUserId: asker.id, clientId: 'c\u001b]0;x\u0007', kind: 'root_access', durationSeconds: null, reason },
      { type: 'person', id: asker.id },
    );
    const transcript: string[] = [];
    const code = await runCli(
      ['approvals', 'approve', request.id],
      { db: database.db, issuer: 'https://id.example.test', atRestKey, operator: 'cli:test@host', out: (line) => transcript.push(line), confirm: async (question) => (transcript.push(`? ${question}`), false) },
      (line) => transcript.push(line),
    );
    expect(code).toBe(1);
    const printed = transcript.join('\n');
    for (const raw of ['\u001b', '\r', '\u202E', '\u202C', '\u0007']) expect(printed).not.toContain(raw);
    expect(printed).toContain('read-only check\\x1B[2A\\x0D\\x1B[2Kaccess read for 900 seconds ⟨U+202E⟩detacilppa⟨U+202C⟩');
    const prompt = transcript.findIndex((line) => line.startsWith('? '));
    const reasonLine = transcript.findIndex((line) => line.startsWith('reason'));
    // Access and duration come from the stored request, after the untrusted text and right before the question.
    const between = transcript.slice(reasonLine + 1, prompt);
    expect(between).toEqual(expect.arrayContaining(['access       ELEVATED (root) access', 'for          PERMANENT']));
    expect(transcript[prompt]).toBe(`? Approve ELEVATED (root) access PERMANENTLY (${request.id})?`);
    expect(printed).toContain('(client c\\x1B]0;x\\x07)');
  });
});
