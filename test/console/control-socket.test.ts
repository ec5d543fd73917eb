// The running server's control socket, with the CLI's real client against real PostgreSQL (or the embedded database):
// commands run inside the server with the CLI's authority and audit actor; questions go back to the person's
// terminal; only a peer that proves it runs as the server's user is served (a proof file it created: right owner, one
// link, private, holding this connection's value); a socket left by a stopped server sends the CLI on alone.
import { randomBytes } from 'node:crypto';
import { chownSync, linkSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOrganizationBySlug } from '../../lib/organizations/organizations';
import { createUser } from '../../lib/accounts/users';
import { addMember } from '../../lib/organizations/memberships';
import { approvalStatusFor, createApprovalRequest } from '../../lib/approvals/broker';
import { runCli } from '../../lib/cli';
import { runThroughServer, type ControlTerminal } from '../../lib/cli/control-client';
import { controlSocketPath, jsonLines, proofFilePath } from '../../lib/cli/control-protocol';
import { startControlSocket, type ControlSocket } from '../../lib/cli/control-socket';
import { findAppListing } from '../../lib/clients/apps';
import { auditEvents } from '../../lib/db/schema';
import { openTestDatabase, type TestDatabase } from '../support/databases';

describe('CLI control socket', () => {
  let database: TestDatabase;
  let dataDir: string;
  let control: ControlSocket;
  let afterCommands = 0;
  const atRestKey = randomBytes(32);

  beforeAll(async () => {
    database = await openTestDatabase();
    dataDir = mkdtempSync(path.join(tmpdir(), 'pc-'));
    control = (await startControlSocket({
      dataDir,
      context: () => ({ db: database.db, issuer: 'https://id.example.test', atRestKey }),
      afterCommand: () => (afterCommands += 1),
      log: () => {},
    }))!;
  });
  afterAll(async () => {
    await control?.close();
    await database?.close();
  });

  function terminal(answers: boolean[] = [], interactive = true) {
    const out: string[] = [];
    const err: string[] = [];
    const asked: string[] = [];
    const io: ControlTerminal = {
      out: (line) => out.push(line),
      err: (line) => err.push(line),
      ask: async (question) => {
        asked.push(question);
        return answers.shift() ?? false;
      },
      interactive,
    };
    return { io, out, err, asked };
  }

  /** A peer that speaks the protocol by hand, so the proof can be wrong in each way. */
  function rawPeer(makeProof: (file: string, nonce: string) => void): Promise<{ type: string; message?: string; code?: number }[]> {
    return new Promise((resolve) => {
      const received: { type: string; message?: string; code?: number }[] = [];
      const socket = createConnection(controlSocketPath(dataDir));
      socket.on(
        'data',
        jsonLines(
          (message) => {
            const typed = message as { type: string; nonce?: string };
            received.push(typed);
            if (typed.type === 'hello') {
              makeProof(proofFilePath(dataDir, typed.nonce!), typed.nonce!);
              socket.write(`${JSON.stringify({ type: 'run', argv: ['orgs', 'create', '--slug', `raw-${randomBytes(3).toString('hex')}`, '--name', 'Raw'], interactive: false })}\n`);
            }
          },
          () => socket.destroy(),
        ),
      );
      socket.on('close', () => resolve(received));
      socket.on('error', () => {});
    });
  }

  it('is a socket only its owner may open (mode 0600)', () => {
    const stats = statSync(controlSocketPath(dataDir));
    expect(stats.isSocket()).toBe(true);
    expect(stats.mode & 0o777).toBe(0o600);
  });

  it('runs a command inside the server, audited as operator_cli, and prints what it says', async () => {
    const { io, out, err } = terminal();
    expect(await runThroughServer(dataDir, ['orgs', 'create', '--slug', 'socketed', '--name', 'Socketed'], io)).toBe(0);
    expect(out.join('\n')).toContain('Created organization socketed');
    expect(err).toEqual([]);
    const org = await findOrganizationBySlug(database.db, 'socketed');
    const [event] = await database.db.select().from(auditEvents).where(eq(auditEvents.orgId, org!.id));
    expect(event).toMatchObject({ action: 'org.created', actorType: 'operator_cli' });
    expect(event!.actorLabel).toMatch(/^cli:.+@.+/);
    expect(afterCommands).toBeGreaterThan(0);
    // A refusal keeps its exit code and its words.
    const again = terminal();
    expect(await runThroughServer(dataDir, ['orgs', 'create', '--slug', 'socketed', '--name', 'Again'], again.io)).toBe(1);
    expect(again.err.join('\n')).toContain('exists already');
  });

  it('asks the person at their terminal before deciding; without a terminal, nothing is decided', async () => {
    const direct = (...argv: string[]) => runCli(argv, { db: database.db, issuer: 'https://id.example.test', atRestKey, operator: 'cli:test@host', out: () => {}, confirm: async () => false }, () => {});
    await direct('orgs', 'create', '--slug', 'sock-ops', '--name', 'Sock Ops');
    const org = (await findOrganizationBySlug(database.db, 'sock-ops'))!;
    const created: string[] = [];
    await runCli(['apps', 'create', '--org', 'sock-ops', '--name', 'Vault', '--origin', 'https://vault.sock.test', '--redirect-uri', 'https://vault.sock.test/cb'], { db: database.db, issuer: 'https://id.example.test', atRestKey, operator: 'cli:test@host', out: (line) => created.push(line), confirm: async () => false }, () => {});
    const app = (await findAppListing(database.db, /PORTICO_CLIENT_ID=(\S+)/.exec(created.join('\n'))![1]!))!;
    const asker = await createUser(database.db, { email: `asker-${randomBytes(3).toString('hex')}@sock.test`, name: 'Asker', passwordHash: 'x' });
    await addMember(database.db, { orgId: org.id, userId: asker.id, role: 'member' });
    // Root access, permanent: only the CLI may decide it.
    const request = await createApprovalRequest(database.db, { orgId: org.id, appId: app.app.id, subjectUserId: asker.id, clientId: 'c', kind: 'root_access', durationSeconds: null, reason: 'migration' }, { type: 'person', id: asker.id });

    const scripted = terminal([], false);
    expect(await runThroughServer(dataDir, ['approvals', 'approve', request.id], scripted.io)).toBe(1);
    expect(scripted.err.join('\n')).toContain('Not confirmed');
    expect((await approvalStatusFor(database.db, request.id, asker.id)).status).toBe('pending');

    const person = terminal([true]);
    expect(await runThroughServer(dataDir, ['approvals', 'approve', request.id], person.io)).toBe(0);
    expect(person.asked).toEqual([`Approve ELEVATED (root) access PERMANENTLY (${request.id})?`]);
    expect(person.out.join('\n')).toContain('Approved: grant apg_');
    expect((await approvalStatusFor(database.db, request.id, asker.id)).status).toBe('approved');
  });

  it('serves only a peer that proves it runs as the server’s user', async () => {
    const refusedFor = async (makeProof: (file: string, nonce: string) => void) => {
      const messages = await rawPeer(makeProof);
      expect(messages.map((message) => message.type)).toEqual(['hello', 'refused']);
      return messages[1]!.message!;
    };
    expect(await refusedFor(() => {})).toContain('no proof file');
    expect(await refusedFor((file, nonce) => writeFileSync(file, nonce, { mode: 0o644 }))).toContain('not a private regular file');
    expect(await refusedFor((file) => writeFileSync(file, 'another value', { mode: 0o600 }))).toContain('does not hold this connection');
    // A second link to a file (someone else's, say) is not a proof of its own.
    expect(
      await refusedFor((file, nonce) => {
        const elsewhere = path.join(dataDir, `elsewhere-${randomBytes(3).toString('hex')}`);
        writeFileSync(elsewhere, nonce, { mode: 0o600 });
        linkSync(elsewhere, file);
      }),
    ).toContain('not a private regular file');
    if (process.getuid?.() === 0) {
      // Another user's file (root can make one here): refused by its owner's uid.
      expect(
        await refusedFor((file, nonce) => {
          writeFileSync(file, nonce, { mode: 0o600 });
          chownSync(file, 65534, 65534);
        }),
      ).toMatch(/the CLI runs as uid 65534, this server as uid 0/);
    }
    // The real client proves it and is served.
    const { io } = terminal();
    expect(await runThroughServer(dataDir, ['orgs', 'list'], io)).toBe(0);
  });

  it('stays up when peers misbehave: too many at once, gone before the answer, or flooding it', async () => {
    const connect = () =>
      new Promise<import('node:net').Socket>((resolve) => {
        const socket = createConnection(controlSocketPath(dataDir));
        socket.on('error', () => {});
        socket.once('connect', () => resolve(socket));
      });
    const silent = await Promise.all(Array.from({ length: 8 }, connect));
    // The ninth is refused; gone at once, its refusal has nowhere to go (must not crash the server).
    const ninth = createConnection(controlSocketPath(dataDir));
    ninth.on('error', () => {});
    ninth.destroy();
    const tenth = await connect();
    const refused = await new Promise<string>((resolve) => {
      let text = '';
      tenth.on('data', (chunk) => (text += chunk.toString()));
      tenth.on('close', () => resolve(text));
    });
    expect(refused).toContain('Too many CLI commands at once');
    for (const socket of silent) socket.destroy();
    // A peer sending junk instead of a command is ended, and only it.
    const flooder = await connect();
    flooder.resume();
    const closed = new Promise<void>((resolve) => flooder.on('close', () => resolve()));
    for (let n = 0; n < 20; n++) flooder.write(`${JSON.stringify({ type: 'answer', yes: true })}\n`);
    await closed;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await runThroughServer(dataDir, ['orgs', 'list'], terminal().io)).toBe(0);
  });

  it('sends the CLI on alone when no server answers: no socket, or one left by a server that stopped', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'pc-'));
    expect(await runThroughServer(empty, ['orgs', 'list'], terminal().io)).toBeUndefined();
    // A socket file nobody listens on any more.
    const stale = mkdtempSync(path.join(tmpdir(), 'pc-'));
    const listener = createServer();
    await new Promise<void>((resolve) => listener.listen(controlSocketPath(stale), resolve));
    // Closing a listener removes its file; a kill -9 would not. Recreate the leftover as a plain file.
    await new Promise<void>((resolve) => listener.close(() => resolve()));
    writeFileSync(controlSocketPath(stale), '');
    expect(await runThroughServer(stale, ['orgs', 'list'], terminal().io)).toBeUndefined();
    // A new server on that folder replaces the leftover.
    const restarted = await startControlSocket({ dataDir: stale, context: () => ({ db: database.db, issuer: 'https://id.example.test', atRestKey }), log: () => {} });
    expect(restarted).toBeDefined();
    expect(await runThroughServer(stale, ['orgs', 'list'], terminal().io)).toBe(0);
    // And a second server on the same folder leaves the first one's socket alone.
    const logged: string[] = [];
    expect(await startControlSocket({ dataDir: stale, context: () => ({ db: database.db, issuer: 'https://id.example.test', atRestKey }), log: (line) => logged.push(line) })).toBeUndefined();
    expect(logged.join('\n')).toContain('another Portico already answers');
    await restarted!.close();
  });
});
