// Data the e2e server starts with besides the demo: a whitelabelled organization with its own app, and people
// for the membership cases. Written through Portico's own domain functions before the server starts.
import { allowAgentUser, createAgent } from '../../lib/organizations/agents';
import { addMember } from '../../lib/organizations/memberships';
import { createOrganization, findOrganizationBySlug, setBranding } from '../../lib/organizations/organizations';
import { hashPassword } from '../../lib/accounts/factors/password';
import { createUser, findUserByEmail } from '../../lib/accounts/users';
import { addPostLogoutRedirectUri, createApp, listApps, setNonceWithoutPkce } from '../../lib/clients/apps';
import { setBackchannelLogout } from '../../lib/clients/backchannel-logout';
import { addPermission } from '../../lib/clients/permission-catalog';
import { addTeamMember, createTeam, grantTeamScope } from '../../lib/organizations/teams';
import type { Database } from '../../lib/db/client';
import { seedDemo } from '../../lib/seed/demo';
import { DEMO, lanePort } from './constants';

const LOGO = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#d9480f"/><path d="M16 5l6 14h-4v8h-4v-8h-4z" fill="#fff"/></svg>')}`;

export const ROCKETS = {
  orgName: 'Acme Rockets',
  brandName: 'Acme Rockets',
  primaryColor: '#d9480f',
  backgroundColor: '#fff4e6',
  appName: 'Rocket Launcher',
  appId: '0f1d6000-0000-4000-8000-0000000a0c4e',
  clientId: 'e2e-rockets-client',
  clientSecret: 'e2e-rockets-secret-0123456789abcdefghijklmnopq',
  redirectUri: `http://127.0.0.1:${lanePort(4997)}/rockets/callback`,
  member: { email: 'pilot@rockets.e2e.test', password: 'rocket-pilot-password-1' },
  vault: {
    appName: 'Vault',
    clientId: 'e2e-vault-client',
    clientSecret: 'e2e-vault-secret-0123456789abcdefghijklmnopqrs',
    redirectUri: `http://127.0.0.1:${lanePort(4998)}/vault/callback`,
  },
  /** A plain member of the demo organization only. */
  outsider: { email: 'outsider@demo.e2e.test', password: 'outsider-password-123' },
  /** A member of the demo organization who turns on two-step sign-in (e2e/two-step.spec.ts). */
  twoStep: { email: 'twostep@demo.e2e.test', password: 'two-step-password-123' },
  /** An owner of the demo organization (so an operator of its apps) who sets up passkeys (e2e/passkeys.spec.ts). */
  passkey: { email: 'passkey@demo.e2e.test', password: 'passkey-person-password-1' },
  /** A member of Acme Rockets whom Rocket Launcher's backend asks to approve actions (CIBA, e2e/ciba.spec.ts). */
  approver: { email: 'approver@rockets.e2e.test', password: 'rocket-approver-password-1' },
  /** A member of Acme Rockets who connects a headless client with the device grant (e2e/device-flow.spec.ts). */
  deviceUser: { email: 'device@rockets.e2e.test', password: 'rocket-device-password-1' },
  /** Rocket Launcher's audience (apps.identity). */
  identity: 'urn:portico:app:0f1d6000-0000-4000-8000-0000000a0c4e',
  /** A member of the demo organization with no second factor, whom an app's acr_values sends to set one up. */
  acr: { email: 'acr@demo.e2e.test', password: 'acr-person-password-123' },
  /** Another such member, who sets up a passkey (not an authenticator app) when acr_values asks for a second factor. */
  acrPasskey: { email: 'acr-passkey@demo.e2e.test', password: 'acr-passkey-password-123' },
} as const;

/**
 * An app of Acme Rockets that serves MCP for real (the example app, e2e/support/flight-deck.ts, started by the tests), and the agents
 * the consent tests choose from.
 */
/**
 * The languages test (e2e/locales.spec.ts): a member of Acme Rockets who reads Portuguese (their choices change
 * nobody else's pages), and an organization of its own whose default language its owner sets.
 */
export const LINGUA = {
  reader: { email: 'leitora@rockets.e2e.test', password: 'leitora-password-123', name: 'Leitora' },
  orgSlug: 'lingua-co',
  orgName: 'Lingua Co',
  owner: { email: 'owner@lingua.e2e.test', password: 'lingua-owner-password-1' },
} as const;

/**
 * Back-channel logout (e2e/backchannel-logout.spec.ts): Signal Deck, another app of Acme Rockets run as the example
 * app, with its logout URI registered; the Intranet, an Apache httpd with mod_auth_openidc as the relying party; and
 * the members whose sessions end.
 */
export const SIGNAL_DECK = {
  appId: '0f1d6000-0000-4000-8000-00000000519d',
  identity: 'urn:portico:app:0f1d6000-0000-4000-8000-00000000519d',
  appName: 'Signal Deck',
  origin: `http://127.0.0.1:${lanePort(4985)}`,
  redirectUri: `http://127.0.0.1:${lanePort(4985)}/callback`,
  backchannelLogoutUri: `http://127.0.0.1:${lanePort(4985)}/backchannel-logout`,
  clientId: 'e2e-signal-deck-client',
  clientSecret: 'e2e-signal-deck-secret-0123456789abcdefghijk',
  leaver: { email: 'leaver@rockets.e2e.test', password: 'rocket-leaver-password-1', name: 'Leaver' },
  resetter: { email: 'resetter@rockets.e2e.test', password: 'rocket-resetter-password-1', name: 'Resetter' },
  revoked: { email: 'revoked@rockets.e2e.test', password: 'rocket-revoked-password-1', name: 'Revoked' },
  intranet: {
    appId: '0f1d6000-0000-4000-8000-0000000a9ac4',
    appName: 'Intranet',
    port: lanePort(4986),
    origin: `http://127.0.0.1:${lanePort(4986)}`,
    redirectUri: `http://127.0.0.1:${lanePort(4986)}/protected/redirect_uri`,
    backchannelLogoutUri: `http://127.0.0.1:${lanePort(4986)}/protected/redirect_uri?logout=backchannel`,
    clientId: 'e2e-intranet-client',
    clientSecret: 'e2e-intranet-secret-0123456789abcdefghijklm',
    person: { email: 'intranet@rockets.e2e.test', password: 'rocket-intranet-password-1', name: 'Intranet user' },
  },
} as const;

/**
 * Relying parties nobody here wrote, each with its own defaults (e2e/relying-parties.spec.ts): an organization of
 * their own, one app per library, registered as an admin copies each library's own addresses — express-openid-connect
 * sends its base URL, without a path, as the post-logout redirect URI.
 */
export const RELYING_PARTIES = {
  orgSlug: 'rp-lab',
  orgName: 'RP Lab',
  person: { email: 'riley@rp.e2e.test', password: 'riley-parker-password-1', name: 'Riley Parker' },
  expressOidc: {
    appId: '0f1d6000-0000-4000-8000-0000000e4c0c',
    appName: 'Express Notes',
    port: lanePort(4660),
    baseUrl: `http://127.0.0.1:${lanePort(4660)}`,
    redirectUri: `http://127.0.0.1:${lanePort(4660)}/callback`,
    clientId: 'e2e-express-oidc-client',
    clientSecret: 'e2e-express-oidc-secret-0123456789abcdefghij',
  },
  /** A single-page app in the browser with oidc-client-ts: a public client, no secret. */
  spa: {
    appId: '0f1d6000-0000-4000-8000-00000000005a',
    appName: 'Pocket Notes',
    port: lanePort(4663),
    baseUrl: `http://127.0.0.1:${lanePort(4663)}`,
    redirectUri: `http://127.0.0.1:${lanePort(4663)}/callback.html`,
    clientId: 'e2e-spa-client',
  },
  /** passport-openidconnect sends no PKCE and its secret in the body: one app lets a nonce stand in, one does not. */
  passport: {
    allowing: {
      appId: '0f1d6000-0000-4000-8000-0000000a550c',
      appName: 'Passport Portal',
      port: lanePort(4661),
      baseUrl: `http://127.0.0.1:${lanePort(4661)}`,
      redirectUri: `http://127.0.0.1:${lanePort(4661)}/callback`,
      clientId: 'e2e-passport-allowing-client',
      clientSecret: 'e2e-passport-allowing-secret-0123456789abcd',
    },
    strict: {
      appId: '0f1d6000-0000-4000-8000-0000000a551c',
      appName: 'Passport Strict',
      port: lanePort(4662),
      baseUrl: `http://127.0.0.1:${lanePort(4662)}`,
      redirectUri: `http://127.0.0.1:${lanePort(4662)}/callback`,
      clientId: 'e2e-passport-strict-client',
      clientSecret: 'e2e-passport-strict-secret-0123456789abcdef',
    },
  },
} as const;

/** A person who belongs to no organization yet, and creates one (e2e/organizations.spec.ts). */
export const FOUNDER = { email: 'founder@e2e.portico.test', password: 'founder-password-12345' } as const;

/** An organization of its own for the MCP gateway (e2e/gateway.spec.ts): its owner adds a passkey there. */
export const GATEWAY_CO = {
  orgSlug: 'gateway-co',
  orgName: 'Gateway Co',
  owner: { email: 'owner@gateway.e2e.test', password: 'gateway-owner-password-1' },
};

/** An organization of its own for the second-factor policy test. */
export const POLICY_CO = {
  orgName: 'Policy Co',
  owner: { email: 'owner@policy.e2e.test', password: 'policy-owner-password-1' },
  member: { email: 'member@policy.e2e.test', password: 'policy-member-password-1' },
};

export const FLIGHT_DECK = {
  appId: '0f1d6000-0000-4000-8000-00000000f1d6',
  identity: 'urn:portico:app:0f1d6000-0000-4000-8000-00000000f1d6',
  appName: 'Flight Deck',
  origin: `http://127.0.0.1:${lanePort(4996)}`,
  resource: `http://127.0.0.1:${lanePort(4996)}/api/mcp`,
  redirectUri: `http://127.0.0.1:${lanePort(4996)}/callback`,
  clientId: 'e2e-flight-deck-client',
  clientSecret: 'e2e-flight-deck-secret-0123456789abcdefghijk',
  /** Owned by the pilot. */
  copilot: { id: 'agt_e2e_copilot_000000001', name: 'Copilot' },
  /** Owned by the engineer and shared with the pilot. */
  navigator: { id: 'agt_e2e_navigator_0000001', name: 'Navigator' },
  /** Owned by the engineer, not shared: the pilot may not name it. */
  groundCrew: { id: 'agt_e2e_groundcrew_000001', name: 'Ground crew' },
  /** The pilot's own agent, but in the demo organization: not usable at Acme Rockets' apps. */
  demoHelper: { id: 'agt_e2e_demohelper_000001', name: 'Demo helper' },
  engineer: { email: 'engineer@rockets.e2e.test', password: 'rocket-engineer-password-1' },
  /** A member with the baseline only: the permissions tests grant and take away what it holds. */
  deckhand: { email: 'deckhand@rockets.e2e.test', password: 'rocket-deckhand-password-1' },
  /** The Flight Deck's permission catalog (besides the baseline `mcp`), with the team that holds it. */
  permissions: { 'notes:read': 'Read notes', 'notes:delete': 'Delete notes', 'deploy:run': 'Run deployments' },
  crewTeam: 'Flight crew',
} as const;

/** Permissions the other fixture apps offer, for the grants the tests make. */
export const FIXTURE_PERMISSIONS = { rockets: { launch: 'Launch rockets' }, demo: { 'reports:read': 'Read reports' } } as const;

export async function seedE2EData(db: Database): Promise<void> {
  await seedDemo(db, {
    email: DEMO.email,
    password: DEMO.password,
    clientId: DEMO.clientId,
    clientSecret: DEMO.clientSecret,
    redirectUri: DEMO.redirectUri,
  });
  if (await findOrganizationBySlug(db, 'acme-rockets')) return;
  await db.transaction(async (tx) => {
    const org = await createOrganization(tx, { slug: 'acme-rockets', name: ROCKETS.orgName });
    await setBranding(tx, org.id, {
      displayName: ROCKETS.brandName,
      logoUrl: LOGO,
      primaryColor: ROCKETS.primaryColor,
      backgroundColor: ROCKETS.backgroundColor,
    });
    await createApp(tx, {
      appId: ROCKETS.appId,
      orgId: org.id,
      slug: 'launcher',
      name: ROCKETS.appName,
      publishOrigin: `http://127.0.0.1:${lanePort(4997)}`,
      redirectUris: [ROCKETS.redirectUri],
      clientId: ROCKETS.clientId,
      clientSecret: ROCKETS.clientSecret,
    });
    const pilot = await createUser(tx, { email: ROCKETS.member.email, name: 'Pilot', passwordHash: await hashPassword(ROCKETS.member.password) });
    await addMember(tx, { orgId: org.id, userId: pilot.id, role: 'member' });
    await createApp(tx, {
      appId: FLIGHT_DECK.appId,
      orgId: org.id,
      slug: 'flight-deck',
      name: FLIGHT_DECK.appName,
      publishOrigin: FLIGHT_DECK.origin,
      redirectUris: [FLIGHT_DECK.redirectUri],
      clientId: FLIGHT_DECK.clientId,
      clientSecret: FLIGHT_DECK.clientSecret,
    });
    for (const app of [
      { appId: SIGNAL_DECK.appId, slug: 'signal-deck', name: SIGNAL_DECK.appName, origin: SIGNAL_DECK.origin, redirectUri: SIGNAL_DECK.redirectUri, clientId: SIGNAL_DECK.clientId, clientSecret: SIGNAL_DECK.clientSecret, logout: SIGNAL_DECK.backchannelLogoutUri },
      { ...SIGNAL_DECK.intranet, slug: 'intranet', name: SIGNAL_DECK.intranet.appName, logout: SIGNAL_DECK.intranet.backchannelLogoutUri },
    ]) {
      await createApp(tx, { appId: app.appId, orgId: org.id, slug: app.slug, name: app.name, publishOrigin: app.origin, redirectUris: [app.redirectUri], clientId: app.clientId, clientSecret: app.clientSecret });
      await setBackchannelLogout(tx, app.clientId, { uri: app.logout, sessionRequired: true });
    }
    for (const person of [SIGNAL_DECK.leaver, SIGNAL_DECK.resetter, SIGNAL_DECK.revoked, SIGNAL_DECK.intranet.person]) {
      const user = await createUser(tx, { email: person.email, name: person.name, passwordHash: await hashPassword(person.password) });
      await addMember(tx, { orgId: org.id, userId: user.id, role: 'member' });
    }
    const engineer = await createUser(tx, { email: FLIGHT_DECK.engineer.email, name: 'Engineer', passwordHash: await hashPassword(FLIGHT_DECK.engineer.password) });
    await addMember(tx, { orgId: org.id, userId: engineer.id, role: 'admin' });
    const deckhand = await createUser(tx, { email: FLIGHT_DECK.deckhand.email, name: 'Deckhand', passwordHash: await hashPassword(FLIGHT_DECK.deckhand.password) });
    await addMember(tx, { orgId: org.id, userId: deckhand.id, role: 'member' });
    // The catalogs: what each app offers to grant. The pilot's crew holds the Flight Deck's notes permissions.
    for (const [scope, description] of Object.entries(FLIGHT_DECK.permissions)) await addPermission(tx, FLIGHT_DECK.appId, { scope, description });
    for (const [scope, description] of Object.entries(FIXTURE_PERMISSIONS.rockets)) await addPermission(tx, ROCKETS.appId, { scope, description });
    const crew = await createTeam(tx, { orgId: org.id, name: FLIGHT_DECK.crewTeam });
    await addTeamMember(tx, crew.id, pilot.id);
    for (const scope of ['notes:read', 'notes:delete']) await grantTeamScope(tx, { teamId: crew.id, appId: FLIGHT_DECK.appId, scope });
    await createAgent(tx, { ...FLIGHT_DECK.copilot, orgId: org.id, ownerUserId: pilot.id });
    await createAgent(tx, { ...FLIGHT_DECK.navigator, orgId: org.id, ownerUserId: engineer.id });
    await allowAgentUser(tx, FLIGHT_DECK.navigator.id, pilot.id);
    await createAgent(tx, { ...FLIGHT_DECK.groundCrew, orgId: org.id, ownerUserId: engineer.id });
    const demoOrg = await findOrganizationBySlug(tx, 'demo');
    // An app of the demo organization whose credential the security tab's test rotates.
    if (demoOrg) {
      await createApp(tx, {
        orgId: demoOrg.id,
        slug: 'vault',
        name: ROCKETS.vault.appName,
        publishOrigin: `http://127.0.0.1:${lanePort(4998)}`,
        redirectUris: [ROCKETS.vault.redirectUri],
        clientId: ROCKETS.vault.clientId,
        clientSecret: ROCKETS.vault.clientSecret,
      });
    }
    const demoApp = demoOrg ? (await listApps(tx, 'demo')).find((listing) => listing.app.slug === 'demo-app') : undefined;
    if (demoApp) for (const [scope, description] of Object.entries(FIXTURE_PERMISSIONS.demo)) await addPermission(tx, demoApp.app.id, { scope, description });
    // The pilot belongs to two organizations (the console's switcher).
    if (demoOrg) await addMember(tx, { orgId: demoOrg.id, userId: pilot.id, role: 'member' });
    if (demoOrg) await createAgent(tx, { ...FLIGHT_DECK.demoHelper, orgId: demoOrg.id, ownerUserId: pilot.id });
    const outsider = await createUser(tx, { email: ROCKETS.outsider.email, name: 'Outsider', passwordHash: await hashPassword(ROCKETS.outsider.password) });
    if (demoOrg) await addMember(tx, { orgId: demoOrg.id, userId: outsider.id, role: 'member' });
    const twoStep = await createUser(tx, { email: ROCKETS.twoStep.email, name: 'Two Step', passwordHash: await hashPassword(ROCKETS.twoStep.password) });
    if (demoOrg) await addMember(tx, { orgId: demoOrg.id, userId: twoStep.id, role: 'member' });
    const passkeyPerson = await createUser(tx, { email: ROCKETS.passkey.email, name: 'Passkey Person', passwordHash: await hashPassword(ROCKETS.passkey.password) });
    if (demoOrg) await addMember(tx, { orgId: demoOrg.id, userId: passkeyPerson.id, role: 'owner' });

    const acrPerson = await createUser(tx, { email: ROCKETS.acr.email, name: 'Acr Person', passwordHash: await hashPassword(ROCKETS.acr.password) });
    if (demoOrg) await addMember(tx, { orgId: demoOrg.id, userId: acrPerson.id, role: 'member' });
    const acrPasskeyPerson = await createUser(tx, { email: ROCKETS.acrPasskey.email, name: 'Acr Passkey Person', passwordHash: await hashPassword(ROCKETS.acrPasskey.password) });
    if (demoOrg) await addMember(tx, { orgId: demoOrg.id, userId: acrPasskeyPerson.id, role: 'member' });
    // An organization whose second-factor policy e2e/second-factor-policy.spec.ts changes (nobody else signs in to it).
    const policyOrg = await createOrganization(tx, { slug: 'policy-co', name: POLICY_CO.orgName });
    const policyOwner = await createUser(tx, { email: POLICY_CO.owner.email, name: 'Policy Owner', passwordHash: await hashPassword(POLICY_CO.owner.password) });
    await addMember(tx, { orgId: policyOrg.id, userId: policyOwner.id, role: 'owner' });
    const policyMember = await createUser(tx, { email: POLICY_CO.member.email, name: 'Policy Member', passwordHash: await hashPassword(POLICY_CO.member.password) });
    await addMember(tx, { orgId: policyOrg.id, userId: policyMember.id, role: 'member' });
    await createUser(tx, { email: FOUNDER.email, name: 'Founder', passwordHash: await hashPassword(FOUNDER.password) });
    const gatewayOrg = await createOrganization(tx, { slug: GATEWAY_CO.orgSlug, name: GATEWAY_CO.orgName });
    const gatewayOwner = await createUser(tx, { email: GATEWAY_CO.owner.email, name: 'Gateway Owner', passwordHash: await hashPassword(GATEWAY_CO.owner.password) });
    await addMember(tx, { orgId: gatewayOrg.id, userId: gatewayOwner.id, role: 'owner' });

    for (const [person, name] of [[ROCKETS.approver, 'Approver'], [ROCKETS.deviceUser, 'Device User']] as const) {
      const created = await createUser(tx, { email: person.email, name, passwordHash: await hashPassword(person.password) });
      await addMember(tx, { orgId: org.id, userId: created.id, role: 'member' });
    }
    const reader = await createUser(tx, { email: LINGUA.reader.email, name: LINGUA.reader.name, passwordHash: await hashPassword(LINGUA.reader.password) });
    await addMember(tx, { orgId: org.id, userId: reader.id, role: 'member' });
    const linguaOrg = await createOrganization(tx, { slug: LINGUA.orgSlug, name: LINGUA.orgName });
    const linguaOwner = await createUser(tx, { email: LINGUA.owner.email, name: 'Lingua Owner', passwordHash: await hashPassword(LINGUA.owner.password) });
    await addMember(tx, { orgId: linguaOrg.id, userId: linguaOwner.id, role: 'owner' });

    // Relying parties nobody here wrote: their apps are made as the console makes them (RS256 ID tokens by default).
    const rpLab = await createOrganization(tx, { slug: RELYING_PARTIES.orgSlug, name: RELYING_PARTIES.orgName });
    const riley = await createUser(tx, { email: RELYING_PARTIES.person.email, name: RELYING_PARTIES.person.name, passwordHash: await hashPassword(RELYING_PARTIES.person.password) });
    await addMember(tx, { orgId: rpLab.id, userId: riley.id, role: 'member' });
    const express = RELYING_PARTIES.expressOidc;
    await createApp(tx, { appId: express.appId, orgId: rpLab.id, slug: 'express-notes', name: express.appName, publishOrigin: express.baseUrl, redirectUris: [express.redirectUri], clientId: express.clientId, clientSecret: express.clientSecret });
    await addPostLogoutRedirectUri(tx, express.clientId, express.baseUrl);
    for (const passport of [RELYING_PARTIES.passport.allowing, RELYING_PARTIES.passport.strict]) {
      await createApp(tx, { appId: passport.appId, orgId: rpLab.id, slug: passport.appName.toLowerCase().replace(' ', '-'), name: passport.appName, publishOrigin: passport.baseUrl, redirectUris: [passport.redirectUri], clientId: passport.clientId, clientSecret: passport.clientSecret, tokenEndpointAuthMethod: 'client_secret_post' });
    }
    const spa = RELYING_PARTIES.spa;
    await createApp(tx, { appId: spa.appId, orgId: rpLab.id, slug: 'pocket-notes', name: spa.appName, publishOrigin: spa.baseUrl, redirectUris: [spa.redirectUri], clientId: spa.clientId, profile: 'spa' });
    // Only the Passport Portal lets a nonce stand in for PKCE (its admin turned it on; e2e/console.spec.ts turns it on and off).
    await setNonceWithoutPkce(tx, RELYING_PARTIES.passport.allowing.clientId, true);

    // An organization the console's deletion test may delete: the demo owner owns it, the outsider administers it.
    const doomed = await createOrganization(tx, { slug: 'doomed-co', name: 'Doomed Co' });
    const owner = demoOrg ? await findUserByEmail(tx, DEMO.email) : undefined;
    if (owner) await addMember(tx, { orgId: doomed.id, userId: owner.id, role: 'owner' });
    await addMember(tx, { orgId: doomed.id, userId: outsider.id, role: 'admin' });
  });
}
