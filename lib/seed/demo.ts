// The demo seed: on the first start with an empty database, one organization, its owner and one app,
// so that a newcomer can sign in at once. It runs at most once per database, ever.
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { personGrants, systemState, users } from '../db/schema';
import { addMember } from '../organizations/memberships';
import { createOrganization } from '../organizations/organizations';
import { hashPassword } from '../accounts/factors/password';
import { createUser } from '../accounts/users';
import { appEnvironmentLines } from '../clients/app-environment';
import { createApp } from '../clients/apps';
import { setBackchannelLogout } from '../clients/backchannel-logout';
import { issueSurfaceSecret } from '../clients/surface';
import { addPermission } from '../clients/permission-catalog';

export interface DemoSeedInput {
  email?: string;
  password?: string;
  clientId?: string;
  clientSecret?: string;
  redirectUri: string;
  /** The example app (examples/notes): registered in the demo organization at this origin. */
  example?: { origin: string; issuer: string; atRestKey: Uint8Array };
}

export type DemoSeedResult =
  | {
      status: 'created';
      email: string;
      password: string;
      passwordGenerated: boolean;
      clientId: string;
      clientSecret: string;
      secretGenerated: boolean;
      redirectUri: string;
      appIdentity: string;
      /** The example app's identity variables (with its secrets), for <data folder>/example-app.env. */
      exampleEnvironment?: string[];
    }
  | { status: 'present'; email: string; clientId: string; redirectUri: string; appIdentity: string }
  | { status: 'skipped' };

const SEED_KEY = 'demo_seed';
// Serializes concurrent first starts of several instances; any fixed number works.
const SEED_LOCK = 727_003;

export async function seedDemo(db: Database, input: DemoSeedInput): Promise<DemoSeedResult> {
  const password = input.password ?? randomBytes(12).toString('base64url');
  // Hashing is slow: do it before taking the lock.
  const passwordHash = await hashPassword(password);

  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${SEED_LOCK})`);
    const [previous] = await tx.select().from(systemState).where(sql`${systemState.key} = ${SEED_KEY}`);
    if (previous) {
      const value = previous.value as { email?: string; clientId?: string; redirectUri?: string; appIdentity?: string };
      if (!value.email || !value.clientId) return { status: 'skipped' } as const;
      return { status: 'present', email: value.email, clientId: value.clientId, redirectUri: value.redirectUri ?? '', appIdentity: value.appIdentity ?? '' } as const;
    }
    // A database someone already set up by hand is not "empty": record that the seed will never run, and stop.
    const [anyUser] = await tx.select({ id: users.id }).from(users).limit(1);
    if (anyUser) {
      await tx.insert(systemState).values({ key: SEED_KEY, value: { skipped: 'database was not empty' } });
      return { status: 'skipped' } as const;
    }

    const email = input.email ?? 'owner@demo.portico.test';
    const org = await createOrganization(tx, { slug: 'demo', name: 'Demo Organization' });
    const owner = await createUser(tx, { email, name: 'Demo Owner', passwordHash });
    await addMember(tx, { orgId: org.id, userId: owner.id, role: 'owner' });
    const redirect = new URL(input.redirectUri);
    const created = await createApp(tx, {
      orgId: org.id,
      slug: 'demo-app',
      name: 'Demo App',
      publishOrigin: redirect.origin,
      redirectUris: [input.redirectUri],
      clientId: input.clientId,
      clientSecret: input.clientSecret,
    });
    let exampleEnvironment: string[] | undefined;
    if (input.example) {
      const example = await createApp(tx, {
        orgId: org.id,
        slug: 'example-notes',
        name: 'Notes (example)',
        publishOrigin: input.example.origin,
        redirectUris: [`${input.example.origin}/callback`],
      });
      const surfaceSecret = await issueSurfaceSecret(tx, example.app.id, input.example.atRestKey);
      // It ends its sessions when Portico says a person's session ended (delivered to a loopback address only with
      // PORTICO_OUTBOUND_ALLOW_LOOPBACK=true: examples/README.md).
      await setBackchannelLogout(tx, example.clientId, { uri: `${input.example.origin}/backchannel-logout`, sessionRequired: true });
      // The example's tools need notes:read and notes:delete besides the baseline: described in its catalog and
      // granted to the demo owner directly, so that every tool works out of the box (docs/permissions.md).
      for (const [scope, description] of [
        ['notes:read', 'Read notes'],
        ['notes:delete', 'Delete notes'],
      ] as const) {
        await addPermission(tx, example.app.id, { scope, description });
        await tx.insert(personGrants).values({ orgId: org.id, userId: owner.id, appId: example.app.id, scope });
      }
      exampleEnvironment = [
        ...appEnvironmentLines({ issuer: input.example.issuer, clientId: example.clientId, clientSecret: example.clientSecret, appIdentity: example.app.identity, surfaceSecret }),
        `EXAMPLE_ORIGIN=${input.example.origin}`,
      ];
    }
    await tx.insert(systemState).values({
      key: SEED_KEY,
      value: { email: owner.email, clientId: created.clientId, redirectUri: input.redirectUri, appIdentity: created.app.identity },
    });
    return {
      status: 'created',
      email: owner.email,
      password,
      passwordGenerated: input.password === undefined,
      clientId: created.clientId,
      clientSecret: created.clientSecret,
      secretGenerated: input.clientSecret === undefined,
      redirectUri: input.redirectUri,
      appIdentity: created.app.identity,
      exampleEnvironment,
    } as const;
  });
}

/** What the seed recorded about the demo app, if it ran. */
export async function readDemoSeed(db: Database): Promise<{ clientId: string; redirectUri: string } | undefined> {
  const [row] = await db.select().from(systemState).where(sql`${systemState.key} = ${SEED_KEY}`);
  const value = row?.value as { clientId?: unknown; redirectUri?: unknown } | undefined;
  if (typeof value?.clientId !== 'string' || typeof value.redirectUri !== 'string') return undefined;
  return { clientId: value.clientId, redirectUri: value.redirectUri };
}
