// A company's SAML 2.0 identity provider for the tests, built from the SAML library's own signing helper
// (@node-saml/node-saml's signSamlPost, which signs with xml-crypto) and a key and certificate made by openssl: it
// reads Portico's AuthnRequest (HTTP-Redirect binding) and writes the Response a real IdP would post back, with
// knobs for everything a Service Provider must refuse.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { signSamlPost } from '@node-saml/node-saml/lib/saml-post-signing.js';

export interface SamlKeyPair {
  certificate: string;
  privateKey: string;
}

export function samlKeyPair(commonName = 'company-idp'): SamlKeyPair {
  const dir = mkdtempSync(path.join(tmpdir(), 'portico-saml-idp-'));
  const keyPath = path.join(dir, 'key.pem');
  const certPath = path.join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${commonName}`, '-keyout', keyPath, '-out', certPath], { stdio: 'ignore' });
  return { certificate: readFileSync(certPath, 'utf8'), privateKey: readFileSync(keyPath, 'utf8') };
}

/** What Portico's redirect carries: the AuthnRequest's ID and destination, and the RelayState. */
export function readAuthnRequest(location: string): { id: string; relayState: string; issuer: string; acs: string } {
  const url = new URL(location);
  const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
  return {
    id: /\sID="([^"]+)"/.exec(xml)?.[1] ?? '',
    acs: /AssertionConsumerServiceURL="([^"]+)"/.exec(xml)?.[1] ?? '',
    issuer: /<saml:Issuer[^>]*>([^<]+)</.exec(xml)?.[1] ?? '',
    relayState: url.searchParams.get('RelayState') ?? '',
  };
}

export interface SamlResponseInput {
  idpEntityId: string;
  keys: SamlKeyPair;
  inResponseTo: string;
  acs: string;
  audience: string;
  nameId: string;
  nameIdFormat?: string;
  attributes?: Record<string, string | string[]>;
  authnContext?: string;
  /** Defaults: a fresh ID; valid from a minute ago for five minutes. */
  assertionId?: string;
  notBefore?: Date;
  notOnOrAfter?: Date;
  recipient?: string;
  destination?: string;
  /** false: the assertion is not signed at all. */
  sign?: boolean;
  /** Defaults: idpEntityId. The assertion's Issuer is signed with it; the Response's is not. */
  assertionIssuer?: string;
  responseIssuer?: string;
  /** The signed SubjectConfirmationData's InResponseTo; default inResponseTo; null: none (an unsolicited assertion). */
  assertionInResponseTo?: string | null;
}

const escapeXml = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A SAML Response (base64, as the HTTP-POST binding carries it) with a signed assertion, unless told otherwise. */
export function samlResponse(input: SamlResponseInput): string {
  const now = new Date();
  const notBefore = (input.notBefore ?? new Date(now.getTime() - 60_000)).toISOString();
  const notOnOrAfter = (input.notOnOrAfter ?? new Date(now.getTime() + 5 * 60_000)).toISOString();
  const assertionId = input.assertionId ?? `_a${randomBytes(16).toString('hex')}`;
  const attributes = Object.entries(input.attributes ?? {})
    .map(([name, values]) => `<saml:Attribute Name="${escapeXml(name)}">${(Array.isArray(values) ? values : [values]).map((value) => `<saml:AttributeValue>${escapeXml(value)}</saml:AttributeValue>`).join('')}</saml:Attribute>`)
    .join('');
  const xml =
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomBytes(16).toString('hex')}" Version="2.0" IssueInstant="${now.toISOString()}" Destination="${escapeXml(input.destination ?? input.acs)}" InResponseTo="${escapeXml(input.inResponseTo)}">` +
    `<saml:Issuer>${escapeXml(input.responseIssuer ?? input.idpEntityId)}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    `<saml:Assertion ID="${assertionId}" Version="2.0" IssueInstant="${now.toISOString()}">` +
    `<saml:Issuer>${escapeXml(input.assertionIssuer ?? input.idpEntityId)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="${escapeXml(input.nameIdFormat ?? 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent')}">${escapeXml(input.nameId)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData${input.assertionInResponseTo === null ? '' : ` InResponseTo="${escapeXml(input.assertionInResponseTo ?? input.inResponseTo)}"`} NotOnOrAfter="${notOnOrAfter}" Recipient="${escapeXml(input.recipient ?? input.acs)}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${escapeXml(input.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${now.toISOString()}" SessionIndex="_s${randomBytes(8).toString('hex')}"><saml:AuthnContext><saml:AuthnContextClassRef>${escapeXml(input.authnContext ?? 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport')}</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '') +
    `</saml:Assertion></samlp:Response>`;
  const signed =
    input.sign === false
      ? xml
      : signSamlPost(xml, '/*[local-name(.)="Response"]/*[local-name(.)="Assertion"]', { privateKey: input.keys.privateKey, publicCert: input.keys.certificate, signatureAlgorithm: 'sha256', digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256' });
  return Buffer.from(signed, 'utf8').toString('base64');
}
