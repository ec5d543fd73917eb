'use server';
// Settings → Identity: each action validates, authorizes `identity.manage` and runs one domain command
// (lib/identity/domains.ts) through the organization-operation kernel; a refusal about the domain stands next to its
// field, and the form keeps what was typed.
import { z } from 'zod';
import { getT } from '@/app/_lib/i18n/server';
import { localized } from '@/lib/i18n/catalogs';
import { addDomain, domainCheckDeps, proveDomain, recordDomainCheck, removeDomain } from '@/lib/identity/domains';
import { createOidcConnection, createSamlConnection, deleteConnection, probeOidcIssuer, setConnectionEnabled, setConnectionRequireSso, updateConnection, useOwnCallback } from '@/lib/identity/connections';
import { issueScimToken, revokeScimToken } from '@/lib/identity/scim/tokens';
import { endLinkedIdentity } from '@/lib/identity/links';
import { createRemoteMcpServer, deleteRemoteMcpServer, removeTrustedAssertionIssuer, trustAssertionIssuer } from '@/lib/identity/enterprise-authorization';
import { db, runtime } from '@/lib/runtime';
import { orgAction } from '../../../_lib/action';
import type { Refusal } from '@/lib/refusals/refusal';
import { deliveryPolicy } from '@/lib/http/outbound';
import { fetchIdpMetadata, MAX_PASTED_METADATA_CHARS, readIdpMetadata } from '@/lib/identity/saml-metadata';
import { connectionPath, identityPath } from './identity-frame';
import { commandRefusal } from '@/lib/organizations/refusal-codes';

export const addDomainAction = orgAction(
  { permission: 'identity.manage', input: z.object({ domain: z.string().max(300) }), refused: (refusal) => (refusal.code === 'invalid_domain' ? { field: 'domain' } : undefined) },
  async ({ tx, input, access, audit }) => {
    const added = await addDomain({ tx, audit, orgId: access.org.id }, input.domain);
    return { status: 'ok', message: (await getT('console.identity'))('domains.added', { domain: added.domain }) };
  },
);

export const checkDomainAction = orgAction(
  {
    permission: 'identity.manage',
    input: z.object({ domainId: z.string().max(64) }),
    // The DNS lookup and the HTTPS request happen before the transaction: they must not hold it open.
    prepare: ({ input, access }) => proveDomain(db(), domainCheckDeps(runtime().env), access.org.id, input.domainId),
  },
  async ({ tx, prepared, access, audit }) => {
  const checked = await recordDomainCheck({ tx, audit, orgId: access.org.id }, prepared);
  const t = await getT('console.identity');
  // A check that found nothing is done, not a success: it reads as a warning, never in green.
  return checked.verified
    ? { status: 'ok', message: t('domains.checkedVerified', { domain: checked.domain.domain }) }
    : { status: 'ok', tone: 'warning', message: t('domains.checkedNot', { domain: checked.domain.domain }) };
  },
);

export const removeDomainAction = orgAction(
  { permission: 'identity.manage', input: (t) => z.object({ domainId: z.string().max(64), confirmed: z.literal('yes', { error: t('console.action.confirm.deletion') }) }) },
  async ({ tx, input, access, audit }) => {
    const removed = await removeDomain({ tx, audit, orgId: access.org.id }, input.domainId);
    return { status: 'ok', message: (await getT('console.identity'))('domains.removed', { domain: removed.domain }) };
  },
);

// Enterprise connections (lib/identity/connections.ts). The issuer's discovery is read before the transaction.
const domainIds = z
  .union([z.string().max(64), z.array(z.string().max(64)).max(50)])
  .optional()
  .transform((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]));
const role = z.enum(['member', 'admin']);
const claim = z.string().max(200);
/** "group = team" lines, as the form's textarea has them. */
const groupTeams = z
  .string()
  .max(20_000)
  .optional()
  .transform((text) => Object.fromEntries((text ?? '').split('\n').map((line) => line.trim()).filter(Boolean).map((line) => {
    const at = line.lastIndexOf('=');
    return at > 0 ? [line.slice(0, at).trim(), line.slice(at + 1).trim()] : [line, ''];
  })));

/** A refusal about one field stands next to it (the code names the field). */
function nextToField(fields: readonly string[]) {
  return (refusal: Refusal) => (fields.includes(refusal.code) ? { field: refusal.code } : refusal.code === 'invalid_issuer' ? { field: 'issuer' } : undefined);
}
const CONNECTION_FIELDS = ['name', 'clientId', 'clientSecret', 'emailClaim', 'nameClaim', 'groupsClaim', 'domains', 'groupTeams', 'entityId', 'ssoUrl', 'certificates', 'metadataUrl', 'metadataXml'] as const;

export const createOidcConnectionAction = orgAction(
  {
    permission: 'identity.manage',
    refused: nextToField(CONNECTION_FIELDS),
    input: z.object({ newConnectionId: z.uuid(), name: z.string().max(200), issuer: z.string().max(600), clientId: z.string().max(400), clientSecret: z.string().max(1200), defaultRole: role, emailClaim: claim, nameClaim: claim, groupsClaim: claim, domainIds }),
    prepare: ({ input }) => probeOidcIssuer(deliveryPolicy(runtime().env), input.issuer),
  },
  async ({ tx, input, access, audit, prepared }) => {
    // The id the form showed in the redirect URI to register, so that the URI registered is the connection's.
    const created = await createOidcConnection({ tx, audit, orgId: access.org.id }, runtime(), { ...input, id: input.newConnectionId }, prepared);
    return { status: 'ok', message: (await getT('console.identity'))('connections.created', { name: created.name }), redirect: connectionPath(access.org.slug, created.id) };
  },
);

export const createSamlConnectionAction = orgAction(
  {
    permission: 'identity.manage',
    refused: nextToField(CONNECTION_FIELDS),
    input: z.object({
      name: z.string().max(200),
      metadataUrl: z.string().max(2100).optional().default(''),
      metadataXml: z.string().max(MAX_PASTED_METADATA_CHARS).optional().default(''),
      entityId: z.string().max(600).optional().default(''),
      ssoUrl: z.string().max(600).optional().default(''),
      certificates: z.string().max(40_000).optional().default(''),
      defaultRole: role,
      emailClaim: claim,
      nameClaim: claim,
      groupsClaim: claim,
      domainIds,
    }),
    // The IdP's metadata is fetched (through the outbound guard) before the transaction, as OIDC discovery is.
    prepare: async ({ input }) => {
      const url = input.metadataUrl.trim();
      const xml = input.metadataXml.trim();
      if (url && xml) throw commandRefusal(400, localized('refusals.connections.metadata.bothSources'), 'metadataXml');
      if (url) return { ...(await fetchIdpMetadata(deliveryPolicy(runtime().env), url, 'metadataUrl')), field: 'metadataUrl', source: 'url' as const, url };
      if (xml) return { ...readIdpMetadata(xml, 'metadataXml'), field: 'metadataXml', source: 'xml' as const };
      return undefined;
    },
  },
  async ({ tx, input, access, audit, prepared }) => {
    const created = await createSamlConnection({ tx, audit, orgId: access.org.id }, input, { allowHttp: runtime().env.outboundAllowLoopback, metadata: prepared });
    return { status: 'ok', message: (await getT('console.identity'))('connections.created', { name: created.name }), redirect: connectionPath(access.org.slug, created.id) };
  },
);

export const updateConnectionAction = orgAction(
  {
    permission: 'identity.manage',
    refused: nextToField(CONNECTION_FIELDS),
    input: z.object({
      connectionId: z.string().max(64),
      name: z.string().max(200),
      defaultRole: role,
      emailClaim: claim,
      nameClaim: claim,
      groupsClaim: claim,
      domainIds,
      groupTeams,
      clientId: z.string().max(400).optional(),
      clientSecret: z.string().max(1200).optional(),
      ssoUrl: z.string().max(600).optional(),
      certificates: z.string().max(40_000).optional(),
    }),
  },
  async ({ tx, input, access, audit }) => {
    const updated = await updateConnection({ tx, audit, orgId: access.org.id }, runtime(), input.connectionId, input, { allowHttp: runtime().env.outboundAllowLoopback });
    return { status: 'ok', message: (await getT('console.identity'))('connections.updated', { name: updated.name }) };
  },
);

export const setConnectionEnabledAction = orgAction(
  { permission: 'identity.manage', input: z.object({ connectionId: z.string().max(64), enabled: z.enum(['yes', 'no']) }) },
  async ({ tx, input, access, audit }) => {
    const connection = await setConnectionEnabled({ tx, audit, orgId: access.org.id }, input.connectionId, input.enabled === 'yes');
    const t = await getT('console.identity');
    return { status: 'ok', message: connection.enabled ? t('connections.enabledNow', { name: connection.name }) : t('connections.disabledNow', { name: connection.name }) };
  },
);

export const setRequireSsoAction = orgAction(
  { permission: 'identity.manage', input: z.object({ connectionId: z.string().max(64), required: z.enum(['yes', 'no']) }) },
  async ({ tx, input, access, audit }) => {
    const connection = await setConnectionRequireSso({ tx, audit, orgId: access.org.id }, input.connectionId, input.required === 'yes');
    const t = await getT('console.identity');
    return { status: 'ok', message: connection.requireSso ? t('connections.ssoRequiredNow', { name: connection.name }) : t('connections.ssoOptionalNow', { name: connection.name }) };
  },
);

export const useOwnCallbackAction = orgAction(
  { permission: 'identity.manage', input: z.object({ connectionId: z.string().max(64) }) },
  async ({ tx, input, access, audit }) => {
    const connection = await useOwnCallback({ tx, audit, orgId: access.org.id }, input.connectionId);
    return { status: 'ok', message: (await getT('console.identity'))('connections.ownCallbackNow', { name: connection.name }) };
  },
);

export const endMemberLinkAction = orgAction(
  { permission: 'identity.manage', input: (t) => z.object({ linkId: z.uuid(), confirmed: z.literal('yes', { error: t('console.action.confirm.deletion') }) }) },
  async ({ tx, input, access, audit }) => {
    const ended = await endLinkedIdentity(tx, { orgId: access.org.id }, input.linkId, { audit });
    if (!ended) throw commandRefusal(404, localized('refusals.connections.linkGone'));
    return { status: 'ok', message: (await getT('console.identity'))('links.ended', { email: ended.email, connection: ended.connectionName }) };
  },
);

export const deleteConnectionAction = orgAction(
  { permission: 'identity.manage', input: (t) => z.object({ connectionId: z.string().max(64), confirmed: z.literal('yes', { error: t('console.action.confirm.deletion') }) }) },
  async ({ tx, input, access, audit }) => {
    const deleted = await deleteConnection({ tx, audit, orgId: access.org.id }, input.connectionId);
    return { status: 'ok', message: (await getT('console.identity'))('connections.deleted', { name: deleted.name }), redirect: identityPath(access.org.slug, 'connections') };
  },
);

// SCIM provisioning (lib/identity/scim/tokens.ts): the token is shown once.
export const issueScimTokenAction = orgAction({ permission: 'identity.manage', input: z.object({}) }, async ({ tx, access, audit }) => {
  const token = await issueScimToken({ tx, audit, orgId: access.org.id, userId: access.user.id });
  return { status: 'ok', message: (await getT('console.identity'))('scim.issued'), secret: [token] };
});

export const revokeScimTokenAction = orgAction(
  { permission: 'identity.manage', input: (t) => z.object({ confirmed: z.literal('yes', { error: t('console.action.confirm.deletion') }) }) },
  async ({ tx, access, audit }) => {
    await revokeScimToken({ tx, audit, orgId: access.org.id });
    return { status: 'ok', message: (await getT('console.identity'))('scim.revoked') };
  },
);

// Enterprise-managed authorization (lib/identity/enterprise-authorization.ts, lib/oidc/id-jag.ts).
const ID_JAG_FIELDS = ['name', 'authorizationServer', 'resource', 'remoteClientId', 'allowedScopes', 'permissionsAppId', 'connectionId', 'issuer', 'jwksUri', 'tenant'] as const;
const idJagOptions = () => ({ allowHttp: runtime().env.outboundAllowLoopback, ownIssuer: runtime().env.PORTICO_ISSUER });

export const addRemoteMcpServerAction = orgAction(
  {
    permission: 'identity.manage',
    refused: nextToField(ID_JAG_FIELDS),
    input: z.object({ name: z.string().max(200), authorizationServer: z.string().max(600), resource: z.string().max(600), remoteClientId: z.string().max(2100), allowedScopes: z.string().max(6000).optional().default(''), permissionsAppId: z.string().max(64).optional() }),
  },
  async ({ tx, input, access, audit }) => {
    const created = await createRemoteMcpServer({ tx, audit, orgId: access.org.id }, input, idJagOptions());
    return { status: 'ok', message: (await getT('console.identity'))('idJag.servers.added', { name: created.name }) };
  },
);

export const removeRemoteMcpServerAction = orgAction(
  { permission: 'identity.manage', input: (t) => z.object({ serverId: z.string().max(64), confirmed: z.literal('yes', { error: t('console.action.confirm.deletion') }) }) },
  async ({ tx, input, access, audit }) => {
    await deleteRemoteMcpServer({ tx, audit, orgId: access.org.id }, input.serverId);
    return { status: 'ok', message: (await getT('console.identity'))('idJag.servers.removed') };
  },
);

export const trustConnectionAction = orgAction({ permission: 'identity.manage', input: z.object({ connectionId: z.string().max(64), tenant: z.string().max(300).optional() }), refused: nextToField(ID_JAG_FIELDS) }, async ({ tx, input, access, audit }) => {
  const trusted = await trustAssertionIssuer({ tx, audit, orgId: access.org.id }, { connectionId: input.connectionId, tenant: input.tenant }, idJagOptions());
  return { status: 'ok', message: (await getT('console.identity'))('idJag.trusted.added', { issuer: trusted.issuer }) };
});

export const trustIssuerKeysAction = orgAction({ permission: 'identity.manage', input: z.object({ issuer: z.string().max(600), jwksUri: z.string().max(600), tenant: z.string().max(300).optional() }), refused: nextToField(ID_JAG_FIELDS) }, async ({ tx, input, access, audit }) => {
  const trusted = await trustAssertionIssuer({ tx, audit, orgId: access.org.id }, { issuer: input.issuer, jwksUri: input.jwksUri, tenant: input.tenant }, idJagOptions());
  return { status: 'ok', message: (await getT('console.identity'))('idJag.trusted.added', { issuer: trusted.issuer }) };
});

export const removeTrustedIssuerAction = orgAction(
  { permission: 'identity.manage', input: (t) => z.object({ trustId: z.string().max(64), confirmed: z.literal('yes', { error: t('console.action.confirm.deletion') }) }) },
  async ({ tx, input, access, audit }) => {
    await removeTrustedAssertionIssuer({ tx, audit, orgId: access.org.id }, input.trustId);
    return { status: 'ok', message: (await getT('console.identity'))('idJag.trusted.removed') };
  },
);
