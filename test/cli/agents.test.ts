// The `agents` commands of the operator CLI (issue 59): an agent turned off (stopped everywhere) and on, the public
// keys of its own client read from a file or standard input on the operator's side (a private key refused), its JWKS
// URL and sponsor team, and workload trust rules — a Kubernetes rule added and listed, and `trust test` with a token
// signed by a key whose public JWKS is given with --jwks-file (no network): exit 0 when a rule takes it, 1 with the
// mismatch shown when it comes from another namespace. Audited as the operator; outside text reaches the terminal
// escaped.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runThroughServer } from '../../lib/cli/control-client';
import { startControlSocket, type ControlSocket } from '../../lib/cli/control-socket';
import { readSecret, type SecretSource } from '../../lib/cli/secret-input';
import { agentKeys, agents, auditEvents, workloadTrustRules } from '../../lib/db/schema';
import { createUser } from '../../lib/accounts/users';
import { addMember } from '../../lib/organizations/memberships';
import { createAgent, type Agent } from '../../lib/organizations/agents';
import { createOrganization, type Organization } from '../../lib/organizations/organizations';
import { createTeam } from '../../lib/organizations/teams';
import { cliRunner } from '../support/cli';
import { openTestDatabase, type TestDatabase } from '../support/databases';

const ISSUER = 'https://id.example.test';
const CLUSTER = 'https://k8s.acme.example';

describe('agents from the CLI', () => {
  let database: TestDatabase;
  let org: Organization;
  let agent: Agent;
  let folder: string;
  const atRestKey = randomBytes(32);
  /** What the operator pipes in, for the commands that read standard input. */
  const operator = { stdin: '' };
  const asked: SecretSource[] = [];

  beforeAll(async () => {
    database = await openTestDatabase();
    org = await createOrganization(database.db, { slug: 'acme', name: 'Acme' });
    const owner = await createUser(database.db, { email: 'ada@acme.test', name: 'Ada', passwordHash: null });
    await addMember(database.db, { orgId: org.id, userId: owner.id, role: 'owner' });
    agent = await createAgent(database.db, { orgId: org.id, name: 'Deployer', ownerUserId: owner.id });
    folder = mkdtempSync(path.join(tmpdir(), 'agents-cli-'));
  });
  afterAll(async () => database?.close());

  const run = (...argv: string[]) =>
    cliRunner(database.db, atRestKey, [], {
      outbound: { allowLoopback: true },
      readSecret: (source) => {
        asked.push(source);
        // Relative paths start at the operator's folder, as INIT_CWD makes them under npm run.
        return readSecret(source, { stdin: Readable.from([operator.stdin]), stderr: new PassThrough(), environment: {}, cwd: folder });
      },
    })(...argv);

  const file = (name: string, content: string) => {
    writeFileSync(path.join(folder, name), content);
    return name;
  };

  it('lists the agents, and disables one (stopping it) and enables it again, audited as the operator', async () => {
    const listed = await run('agents', 'list', '--org', 'acme');
    expect(listed.out.split('\n')).toEqual(['AGENT\tNAME\tOWNER\tSTATE\tSPONSOR\tLAST USED', `${agent.id}\tDeployer\tada@acme.test\tenabled\tnone\tnever`]);

    const disabled = await run('agents', 'disable', agent.id, '--org', 'acme');
    expect([disabled.code, disabled.err]).toEqual([0, '']);
    expect(disabled.out).toContain('Deployer is disabled');
    expect((await run('agents', 'list', '--org', 'acme')).out).toContain('\tdisabled\t');
    expect((await run('agents', 'disable', agent.id, '--org', 'acme')).err).toBe('Deployer is disabled already.');
    expect((await run('agents', 'enable', agent.id, '--org', 'acme')).out).toBe('Deployer is enabled again.');
    expect((await run('agents', 'enable', agent.id, '--org', 'acme')).code).toBe(1);

    // A malformed id is a misuse; an unknown one is said so.
    expect((await run('agents', 'disable', 'nobody', '--org', 'acme')).code).toBe(2);
    const unknown = await run('agents', 'disable', 'agt_0000000000000000', '--org', 'acme');
    expect([unknown.code, unknown.err]).toEqual([1, 'acme has no agent "agt_0000000000000000". List them with: npm run portico -- agents list --org acme']);

    const events = await database.db.select({ action: auditEvents.action, type: auditEvents.actorType, label: auditEvents.actorLabel }).from(auditEvents).where(eq(auditEvents.subjectId, agent.id));
    expect(events.map((event) => `${event.action} ${event.type} ${event.label}`)).toEqual(['agent.disabled operator_cli cli:test@host', 'agent.enabled operator_cli cli:test@host']);
  });

  it('adds a public key from a file and from standard input, lists and removes it; a private key is refused', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const pem = file('agent.pub.pem', await exportSPKI(publicKey));
    const added = await run('agents', 'keys', 'add', agent.id, '--org', 'acme', '--public-key-file', pem);
    expect([added.code, added.err]).toEqual([0, '']);
    const [stored] = await database.db.select().from(agentKeys).where(eq(agentKeys.agentId, agent.id));
    expect(stored).toMatchObject({ alg: 'ES256', createdByUserId: null });
    expect(stored!.publicJwk).not.toHaveProperty('d');
    expect(added.out).toContain(`kid ${stored!.kid}, ES256 (key ${stored!.id})`);
    expect(asked.at(-1)).toEqual({ from: 'file', path: 'agent.pub.pem' });

    // A second key as a JWK with its own kid, piped in (`-`), with the algorithm named.
    const rsa = await generateKeyPair('PS256', { modulusLength: 2048, extractable: true });
    operator.stdin = JSON.stringify({ ...(await exportJWK(rsa.publicKey)), kid: 'rotation-2' });
    const piped = await run('agents', 'keys', 'add', agent.id, '--org', 'acme', '--public-key-file', '-', '--alg', 'PS256');
    expect([piped.code, piped.err]).toEqual([0, '']);
    expect(piped.out).toContain('kid rotation-2, PS256');
    expect(asked.at(-1)).toMatchObject({ from: 'stdin', whole: true });

    const listed = await run('agents', 'keys', 'list', agent.id, '--org', 'acme');
    expect(listed.out.split('\n')[0]).toBe('KEY\tKID\tALG\tADDED');
    expect(listed.out).toContain(`${stored!.id}\t${stored!.kid}\tES256\t`);
    expect(listed.out).toContain('\trotation-2\tPS256\t');

    // The private key is refused, next to the option it came with; so is a file that is not there.
    const secret = file('agent.key.json', JSON.stringify(await exportJWK(privateKey as CryptoKey)));
    const refused = await run('agents', 'keys', 'add', agent.id, '--org', 'acme', '--public-key-file', secret);
    expect([refused.code, refused.err]).toEqual([1, '--public-key-file: This is a private key. Paste only the public key: the private key never leaves the workload.']);
    const missing = await run('agents', 'keys', 'add', agent.id, '--org', 'acme', '--public-key-file', 'nowhere.pem');
    expect([missing.code, missing.err]).toEqual([1, '--public-key-file: there is no file nowhere.pem. Nothing was changed.']);
    expect((await run('agents', 'keys', 'add', agent.id, '--org', 'acme', '--public-key-file', pem, '--alg', 'RS256')).err).toMatch(/^--alg: The algorithm must be .* and fit the key\.$/);
    expect((await run('agents', 'keys', 'list', agent.id, '--org', 'acme', '--alg', 'ES256')).code).toBe(2);

    // Removed by its id, or by its kid.
    expect((await run('agents', 'keys', 'remove', agent.id, stored!.id, '--org', 'acme')).out).toBe(`Key ${stored!.kid} removed.`);
    expect((await run('agents', 'keys', 'remove', agent.id, 'rotation-2', '--org', 'acme')).out).toBe('Key rotation-2 removed.');
    expect(await database.db.select().from(agentKeys).where(eq(agentKeys.agentId, agent.id))).toEqual([]);
    expect((await run('agents', 'keys', 'remove', agent.id, 'rotation-2', '--org', 'acme')).code).toBe(1);
    const actions = (await database.db.select({ action: auditEvents.action }).from(auditEvents).where(eq(auditEvents.subjectId, agent.id))).map((event) => event.action);
    expect(actions.filter((action) => action.startsWith('agent.key_'))).toEqual(['agent.key_added', 'agent.key_added', 'agent.key_removed', 'agent.key_removed']);
  });

  it('reads a key file on the CLI’s side when the command runs inside the server, and says why one cannot be read', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'pc-'));
    const control = (await startControlSocket({ dataDir, context: () => ({ db: database.db, issuer: ISSUER, atRestKey }), log: () => {} })) as ControlSocket;
    try {
      const through = async (...argv: string[]) => {
        const out: string[] = [];
        const err: string[] = [];
        const code = await runThroughServer(dataDir, argv, {
          out: (line) => out.push(line),
          err: (line) => err.push(line),
          ask: async () => false,
          interactive: false,
          secret: (source) => readSecret(source, { stdin: Readable.from(['']), stderr: new PassThrough(), environment: {}, cwd: folder }),
        });
        return { code, out: out.join('\n'), err: err.join('\n') };
      };
      const missing = await through('agents', 'keys', 'add', agent.id, '--org', 'acme', '--public-key-file', 'elsewhere.pem');
      expect([missing.code, missing.err]).toEqual([1, '--public-key-file: there is no file elsewhere.pem. Nothing was changed.']);
      const pem = file('socket.pub.pem', await exportSPKI((await generateKeyPair('EdDSA', { extractable: true })).publicKey));
      const added = await through('agents', 'keys', 'add', agent.id, '--org', 'acme', '--public-key-file', pem);
      expect([added.code, added.err]).toEqual([0, '']);
      expect(added.out).toContain(', EdDSA (key ');
      const [key] = await database.db.select().from(agentKeys).where(eq(agentKeys.agentId, agent.id));
      expect((await run('agents', 'keys', 'remove', agent.id, key!.id, '--org', 'acme')).code).toBe(0);
    } finally {
      await control.close();
    }
  });

  it('sets and removes the JWKS URL and the sponsor team, refusing a URL that is not https', async () => {
    expect((await run('agents', 'jwks-uri', 'set', agent.id, 'https://keys.acme.example/jwks.json', '--org', 'acme')).out).toBe('Deployer now also takes the keys published at its JWKS URL.');
    expect((await run('agents', 'keys', 'list', agent.id, '--org', 'acme')).out).toContain('Deployer also takes the keys published at https://keys.acme.example/jwks.json.');
    const refused = await run('agents', 'jwks-uri', 'set', agent.id, 'ftp://keys.acme.example', '--org', 'acme');
    expect([refused.code, refused.err]).toEqual([1, '<url>: The JWKS URL must be an https URL (leave it empty to remove it).']);
    expect((await run('agents', 'jwks-uri', 'set', agent.id, '', '--org', 'acme')).out).toBe('Deployer no longer takes keys from a JWKS URL.');

    const team = await createTeam(database.db, { orgId: org.id, name: 'Platform' });
    expect((await run('agents', 'sponsor', 'set', agent.id, 'platform', '--org', 'acme')).out).toBe('The team Platform now sponsors Deployer.');
    expect((await database.db.select({ sponsor: agents.sponsorTeamId }).from(agents).where(eq(agents.id, agent.id)))[0]!.sponsor).toBe(team.id);
    expect((await run('agents', 'list', '--org', 'acme')).out).toContain('\tenabled\tPlatform\tnever');
    expect((await run('agents', 'sponsor', 'set', agent.id, 'Nobody', '--org', 'acme')).code).toBe(1);
    expect((await run('agents', 'sponsor', 'set', agent.id, 'none', '--org', 'acme')).out).toBe('Deployer has no sponsor team now.');
  });

  describe('workload trust', () => {
    let clusterKey: CryptoKey;

    const token = (namespace: string) =>
      new SignJWT({ 'kubernetes.io': { namespace, serviceaccount: { name: 'deployer' } } })
        .setProtectedHeader({ alg: 'ES256', kid: 'cluster-1' })
        .setIssuer(CLUSTER)
        .setSubject(`system:serviceaccount:${namespace}:deployer`)
        .setAudience(ISSUER)
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(clusterKey);

    beforeAll(async () => {
      const pair = await generateKeyPair('ES256', { extractable: true });
      clusterKey = pair.privateKey;
      file('cluster-jwks.json', JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'cluster-1', alg: 'ES256', use: 'sig' }] }));
    });

    it('adds a kubernetes rule with its keys from a file, and lists it', async () => {
      const added = await run(
        'agents', 'trust', 'add', '--org', 'acme', '--agent', agent.id, '--name', 'Deployer in prod', '--kind', 'kubernetes',
        '--issuer', CLUSTER, '--jwks-file', 'cluster-jwks.json', '--namespace', 'prod', '--service-account', 'deployer',
      );
      expect([added.code, added.err]).toEqual([0, '']);
      const [rule] = await database.db.select().from(workloadTrustRules).where(eq(workloadTrustRules.agentId, agent.id));
      expect(rule).toMatchObject({ kind: 'kubernetes', issuer: CLUSTER, subject: 'system:serviceaccount:prod:deployer', claims: { 'kubernetes.io.namespace': 'prod', 'kubernetes.io.serviceaccount.name': 'deployer' }, createdByUserId: null });
      expect(added.out).toContain(`Added the trust rule Deployer in prod (${rule!.id}) for Deployer (${agent.id}):`);
      expect(added.out).toContain('  keys      1 key(s) given');

      const listed = await run('agents', 'trust', 'list', '--org', 'acme');
      expect(listed.out.split('\n')).toEqual([
        'RULE\tAGENT\tNAME\tKIND\tISSUER\tKEYS\tAUDIENCE\tMATCHES',
        `${rule!.id}\t${agent.id}\tDeployer in prod\tkubernetes\t${CLUSTER}\t1 key(s) given\tthis Portico\tsub=system:serviceaccount:prod:deployer, kubernetes.io.namespace=prod, kubernetes.io.serviceaccount.name=deployer`,
      ]);
      expect((await run('agents', 'trust', 'list', '--org', 'acme', '--agent', agent.id)).out).toBe(listed.out);

      const [event] = await database.db.select().from(auditEvents).where(eq(auditEvents.action, 'agent.trust_rule_added'));
      expect([event!.actorType, event!.actorLabel]).toEqual(['operator_cli', 'cli:test@host']);
    });

    it('refuses a rule with a field wrong, naming its option', async () => {
      const base = ['agents', 'trust', 'add', '--org', 'acme', '--agent', agent.id, '--name', 'Bad', '--issuer', CLUSTER, '--jwks-file', 'cluster-jwks.json'];
      const noNamespace = await run(...base, '--kind', 'kubernetes', '--service-account', 'deployer');
      expect([noNamespace.code, noNamespace.err]).toEqual([1, '--namespace: is required: the Kubernetes namespace (1-63 lowercase letters, digits or -)']);
      expect((await run(...base, '--kind', 'mainframe', '--subject', 'x')).err).toBe('--kind: choose kubernetes, spiffe, ci or generic');
      expect((await run(...base, '--kind', 'generic')).err).toBe('--subject or --claim: name the subject or at least one claim: a rule matching every token of an issuer is refused');
      // The issuer's keys as a private JWK: refused.
      const secret = file('private-jwks.json', JSON.stringify({ keys: [await exportJWK(clusterKey)] }));
      expect((await run('agents', 'trust', 'add', '--org', 'acme', '--agent', agent.id, '--name', 'Bad', '--issuer', CLUSTER, '--jwks-file', secret, '--kind', 'generic', '--subject', 'x')).err).toMatch(/^--jwks-file: must be a JSON Web Key Set of public keys/);
      expect((await run(...base, '--kind', 'generic', '--claim', 'no-equals')).code).toBe(2);
      expect((await run(...base, '--kind', 'generic', '--subject', 'x', '--token-file', 't')).code).toBe(2);
      expect((await database.db.select().from(workloadTrustRules)).map((rule) => rule.name)).toEqual(['Deployer in prod']);
    });

    it('tests a token: exit 0 when a rule takes it, 1 with the mismatch for another namespace; nothing is used up', async () => {
      operator.stdin = `${await token('prod')}\n`;
      const matched = await run('agents', 'trust', 'test', '--org', 'acme');
      expect([matched.code, matched.err]).toEqual([0, '']);
      expect(asked.at(-1)).toEqual({ from: 'stdin', prompt: 'The workload token (a JWT)' });
      const [rule] = await database.db.select().from(workloadTrustRules).where(eq(workloadTrustRules.agentId, agent.id));
      expect(matched.out.split('\n')).toEqual([
        `Token of ${CLUSTER} for system:serviceaccount:prod:deployer, signature verified.`,
        `MATCHED      Deployer in prod (rule ${rule!.id}, agent Deployer ${agent.id})`,
        `The token would be exchanged for a token of Deployer (${agent.id}) by the rule Deployer in prod. Nothing was used up: testing records nothing.`,
      ]);
      // The same token again: testing recorded nothing.
      expect((await run('agents', 'trust', 'test', '--org', 'acme')).code).toBe(0);

      const staging = file('staging.jwt', await token('staging'));
      const other = await run('agents', 'trust', 'test', '--org', 'acme', '--token-file', staging);
      expect(other.code).toBe(1);
      expect(other.out).toContain(`NOT MATCHED  Deployer in prod (rule ${rule!.id}, agent Deployer ${agent.id}): sub is "system:serviceaccount:staging:deployer"; the rule wants "system:serviceaccount:prod:deployer"`);
      expect(other.err).toBe('No rule takes this token: the assertion’s subject and claims match no trust rule.');

      // Not a token at all; no token given.
      operator.stdin = 'not a token';
      expect((await run('agents', 'trust', 'test', '--org', 'acme')).err).toBe('No rule takes this token: the assertion is not a signed JWT.');
      operator.stdin = '';
      expect((await run('agents', 'trust', 'test', '--org', 'acme')).err).toContain('--token-file: nothing came on standard input.');
      // Never an audit event for a test.
      expect((await database.db.select().from(auditEvents)).filter((event) => event.action.includes('test'))).toEqual([]);
    });

    it('never sends a rule’s control characters to the terminal raw, and removes a rule', async () => {
      const added = await run(
        'agents', 'trust', 'add', '--org', 'acme', '--agent', agent.id, '--name', 'CI\u001b[2J\u202Eevil', '--kind', 'ci',
        '--issuer', 'https://token.actions.githubusercontent.com', '--jwks-uri', 'https://token.actions.githubusercontent.com/.well-known/jwks', '--repository', 'acme/deploy', '--ref', 'refs/heads/main',
      );
      expect(added.code).toBe(0);
      const listed = await run('agents', 'trust', 'list', '--org', 'acme');
      for (const output of [added.out, listed.out]) {
        expect(output).toContain('CI\\x1B[2J⟨U+202E⟩evil');
        expect(output).not.toMatch(/[\u001b\u202e]/);
      }
      expect(listed.out).toContain('\tci\thttps://token.actions.githubusercontent.com\thttps://token.actions.githubusercontent.com/.well-known/jwks\tthis Portico\tref=refs/heads/main, repository=acme/deploy'); // jsonb keeps shorter keys first

      const [rule] = await database.db.select().from(workloadTrustRules).where(eq(workloadTrustRules.kind, 'ci'));
      const removed = await run('agents', 'trust', 'remove', rule!.id, '--org', 'acme');
      expect(removed.out).toBe('Trust rule CI\\x1B[2J⟨U+202E⟩evil removed.');
      expect((await run('agents', 'trust', 'remove', rule!.id, '--org', 'acme')).err).toBe('This trust rule does not exist in this organization.');
    });
  });
});
