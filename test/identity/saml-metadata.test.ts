// Reading a company IdP's SAML 2.0 metadata (lib/identity/saml-metadata.ts): documents written by samlify's
// IdentityProvider (a SAML library nobody here wrote), and the shapes large IdPs publish (Entra ID's federation
// metadata with its RoleDescriptors and two signing keys, Google Workspace's SSO URL with a query, an aggregate
// EntitiesDescriptor); refused: a DOCTYPE (entity expansion or an external entity), POST-only sign-on, no signing key,
// several IdPs, what is not metadata at all. Fetched by URL through the outbound guard from a real HTTP server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { X509Certificate } from 'node:crypto';
import * as samlify from 'samlify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Refusal as CommandRefusal } from '../../lib/refusals/refusal';
import { fetchIdpMetadata, readIdpMetadata } from '../../lib/identity/saml-metadata';
import { samlKeyPair, type SamlKeyPair } from '../support/saml-idp';

const { redirect: REDIRECT, post: POST } = samlify.Constants.namespace.binding;
const base64Of = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, '');

/** IdP metadata as samlify writes it. */
function samlifyMetadata(entityID: string, keys: SamlKeyPair, services: { Binding: string; Location: string }[]): string {
  return samlify
    .IdentityProvider({ entityID, signingCert: keys.certificate, singleSignOnService: services, singleLogoutService: [{ Binding: REDIRECT, Location: 'https://idp.example/slo' }] })
    .getMetadata();
}

/** The shape of Entra ID's federation metadata: a signature, WS-Federation RoleDescriptors with keys of their own, two signing keys. */
function entraShapedMetadata(entityId: string, first: SamlKeyPair, second: SamlKeyPair, roleKey: SamlKeyPair): string {
  const keyDescriptor = (keys: SamlKeyPair, use?: string) =>
    `<KeyDescriptor${use ? ` use="${use}"` : ''}><KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Data><X509Certificate>\n${base64Of(keys.certificate).match(/.{1,76}/g)!.join('\n')}\n</X509Certificate></X509Data></KeyInfo></KeyDescriptor>`;
  return `<?xml version="1.0" encoding="utf-8"?>
<EntityDescriptor ID="_b1" entityID="${entityId}" xmlns="urn:oasis:names:tc:SAML:2.0:metadata">
  <Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo/><SignatureValue>AAAA</SignatureValue></Signature>
  <RoleDescriptor xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:fed="http://docs.oasis-open.org/wsfed/federation/200706" xsi:type="fed:SecurityTokenServiceType" protocolSupportEnumeration="http://docs.oasis-open.org/wsfed/federation/200706">
    ${keyDescriptor(roleKey, 'signing')}
  </RoleDescriptor>
  <IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    ${keyDescriptor(first, 'signing')}
    ${keyDescriptor(second)}
    ${keyDescriptor(roleKey, 'encryption')}
    <SingleLogoutService Binding="${REDIRECT}" Location="https://login.microsoftonline.test/tenant/saml2"/>
    <SingleSignOnService Binding="${REDIRECT}" Location="https://login.microsoftonline.test/tenant/saml2"/>
    <SingleSignOnService Binding="${POST}" Location="https://login.microsoftonline.test/tenant/saml2"/>
  </IDPSSODescriptor>
</EntityDescriptor>`;
}

const refusalOf = (work: () => unknown): CommandRefusal => {
  try {
    work();
  } catch (error) {
    if (error instanceof CommandRefusal) return error;
    throw error;
  }
  throw new Error('not refused');
};

describe('SAML IdP metadata', () => {
  let keys: SamlKeyPair;
  let second: SamlKeyPair;
  let roleKey: SamlKeyPair;
  let server: Server;
  let base: string;
  const served = new Map<string, { status: number; body: string }>();
  let requests = 0;

  beforeAll(async () => {
    [keys, second, roleKey] = [samlKeyPair('idp-one'), samlKeyPair('idp-two'), samlKeyPair('wsfed-role')];
    server = createServer((request, response) => {
      requests += 1;
      const answer = served.get(request.url ?? '') ?? { status: 404, body: 'not here' };
      response.writeHead(answer.status, { 'content-type': 'application/samlmetadata+xml' }).end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("reads samlify's IdP metadata: the entity ID, the HTTP-Redirect service (its query kept), the signing certificate", () => {
    const xml = samlifyMetadata('https://idp.example/entity', keys, [
      { Binding: POST, Location: 'https://idp.example/sso/post' },
      { Binding: REDIRECT, Location: 'https://accounts.google.test/o/saml2/idp?idpid=C01&x=1' },
    ]);
    const read = readIdpMetadata(xml, 'metadataXml');
    expect(read.entityId).toBe('https://idp.example/entity');
    expect(read.ssoUrl).toBe('https://accounts.google.test/o/saml2/idp?idpid=C01&x=1');
    expect(read.certificates).toHaveLength(1);
    expect(new X509Certificate(read.certificates[0]!).fingerprint256).toBe(new X509Certificate(keys.certificate).fingerprint256);
  });

  it("reads Entra-shaped metadata: only the IdP role's signing keys (both), not a RoleDescriptor's or an encryption key", () => {
    const read = readIdpMetadata(entraShapedMetadata('https://sts.windows.test/tenant/', keys, second, roleKey), 'metadataXml');
    expect(read).toMatchObject({ entityId: 'https://sts.windows.test/tenant/', ssoUrl: 'https://login.microsoftonline.test/tenant/saml2' });
    expect(read.certificates.map((pem) => new X509Certificate(pem).subject)).toEqual(['CN=idp-one', 'CN=idp-two']);
  });

  it('takes the one IdP of an aggregate, and refuses an aggregate of several', () => {
    const idp = samlifyMetadata('https://idp.example/one', keys, [{ Binding: REDIRECT, Location: 'https://idp.example/sso' }]).replace(/^<EntityDescriptor/, '<EntityDescriptor');
    const sp = '<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://sp.example"><SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"/></EntityDescriptor>';
    const aggregate = (...entities: string[]) => `<EntitiesDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata">${entities.join('')}</EntitiesDescriptor>`;
    expect(readIdpMetadata(aggregate(sp, idp), 'metadataXml').entityId).toBe('https://idp.example/one');
    const other = samlifyMetadata('https://idp.example/two', second, [{ Binding: REDIRECT, Location: 'https://idp.example/sso2' }]);
    expect(refusalOf(() => readIdpMetadata(aggregate(idp, other), 'metadataXml')).text?.key).toBe('refusals.connections.metadata.severalIdps');
  });

  it('refuses POST-only sign-on, no service, no signing key, and what is not IdP metadata — next to the field it came from', () => {
    const postOnly = samlifyMetadata('https://idp.example/p', keys, [{ Binding: POST, Location: 'https://idp.example/sso' }]);
    const refused = refusalOf(() => readIdpMetadata(postOnly, 'metadataUrl'));
    expect(refused.code).toBe('metadataUrl');
    expect(refused.text?.key).toBe('refusals.connections.metadata.postOnly');
    const entra = entraShapedMetadata('https://sts.windows.test/t/', keys, second, roleKey);
    const cases: [string, string][] = [
      [entra.replace(/<SingleSignOnService[^>]*\/>/g, ''), 'noSso'],
      // The IdP role's keys gone (the RoleDescriptor's signing key stays: it is not the IdP's).
      [entra.replace(/(<IDPSSODescriptor[^>]*>)[\s\S]*?(<SingleLogoutService)/, '$1$2'), 'noCertificate'],
      // Only an encryption key left.
      [entra.replace(/(<IDPSSODescriptor[^>]*>)[\s\S]*?(<KeyDescriptor use="encryption")/, '$1$2'), 'noCertificate'],
      [entra.replace(/<X509Certificate>[^<]*<\/X509Certificate>/g, '<X509Certificate>bm90IGEgY2VydGlmaWNhdGU=</X509Certificate>'), 'noCertificate'],
      [entra.replace('urn:oasis:names:tc:SAML:2.0:metadata', 'urn:example:not-metadata'), 'notMetadata'],
      ['<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://sp.example"><SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"/></EntityDescriptor>', 'notMetadata'],
      ['{"issuer": "https://idp.example"}', 'notMetadata'],
      ['<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata"', 'notMetadata'],
    ];
    for (const [xml, problem] of cases) expect(refusalOf(() => readIdpMetadata(xml, 'metadataXml')).text?.key, problem).toBe(`refusals.connections.metadata.${problem}`);
  });

  it('refuses a DOCTYPE whole: no entity is expanded, no file or URL it names is read', () => {
    const real = samlifyMetadata('https://idp.example/x', keys, [{ Binding: REDIRECT, Location: 'https://idp.example/sso' }]);
    const external = `<?xml version="1.0"?><!DOCTYPE EntityDescriptor [<!ENTITY leak SYSTEM "file:///etc/passwd">]>${real.replace('https://idp.example/x', '&leak;')}`;
    const billionLaughs = `<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>${real.replace('https://idp.example/x', '&b;')}`;
    // Even one whose entities are never used: a DOCTYPE is refused before any parser reads it.
    const unused = `<!DOCTYPE EntityDescriptor [<!ENTITY unused SYSTEM "http://127.0.0.1:1/dtd">]>${real}`;
    for (const xml of [external, billionLaughs, unused, external.replace('DOCTYPE', 'doctype')]) {
      const refused = refusalOf(() => readIdpMetadata(xml, 'metadataXml'));
      expect(refused.text?.key).toBe('refusals.connections.metadata.notMetadata');
      expect(refused.message).not.toContain('root:');
    }
  });

  it('fetches metadata by URL through the outbound guard: a query kept, another status said, a loopback host refused unless allowed', async () => {
    served.set('/federationmetadata/2007-06/federationmetadata.xml?appid=abc', { status: 200, body: entraShapedMetadata('https://sts.windows.test/t/', keys, second, roleKey) });
    const allowed = { allowLoopback: true };
    const read = await fetchIdpMetadata(allowed, `${base}/federationmetadata/2007-06/federationmetadata.xml?appid=abc#fragment`, 'metadataUrl');
    expect(read.entityId).toBe('https://sts.windows.test/t/');

    const status = (await fetchIdpMetadata(allowed, `${base}/missing`, 'metadataUrl').catch((error: unknown) => error)) as CommandRefusal;
    expect(status).toBeInstanceOf(CommandRefusal);
    expect(status.code).toBe('metadataUrl');
    expect(status.message).toContain('404');

    // The same address, from an installation that does not allow loopback: never fetched.
    const before = requests;
    const refused = (await fetchIdpMetadata({ allowLoopback: false }, `${base.replace('http:', 'https:')}/federationmetadata/2007-06/federationmetadata.xml?appid=abc`, 'metadataUrl').catch((error: unknown) => error)) as CommandRefusal;
    expect(refused).toBeInstanceOf(CommandRefusal);
    expect(refused.text?.key).toBe('refusals.connections.metadata.unreachable');
    expect(requests).toBe(before);
    // http is for loopback tests only; credentials in the URL and what is no URL are refused before any request.
    for (const url of ['http://idp.example/metadata', 'https://user:pw@idp.example/metadata', 'not a url', 'ftp://idp.example/metadata']) {
      expect(((await fetchIdpMetadata({ allowLoopback: false }, url, 'metadataUrl').catch((error: unknown) => error)) as CommandRefusal).text?.key, url).toBe('refusals.connections.metadata.invalidUrl');
    }
  });

  it('refuses an answer over a megabyte', async () => {
    served.set('/huge', { status: 200, body: `<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata">${' '.repeat(1024 * 1024 + 10)}</EntityDescriptor>` });
    const refused = (await fetchIdpMetadata({ allowLoopback: true }, `${base}/huge`, 'metadataUrl').catch((error: unknown) => error)) as CommandRefusal;
    expect(refused.text?.key).toBe('refusals.connections.metadata.unreachable');
  });
});
