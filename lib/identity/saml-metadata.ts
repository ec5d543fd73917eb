// A company identity provider's SAML 2.0 metadata (OASIS "Metadata for the OASIS Security Assertion Markup Language
// (SAML) V2.0", saml-metadata-2.0-os), read the way Keycloak, Auth0 and Okta import it: the IdP's entity ID, the single
// sign-on service that takes an AuthnRequest by HTTP-Redirect (the binding Portico sends, §2.4.3 / SAML Bindings
// §3.4), and its signing certificates (KeyDescriptor use="signing" or with no use, §2.4.1.1). Nothing else in the
// document is followed: it is data from outside, refused whole when it declares a DOCTYPE (no entities, no DTD), and
// each value read is then checked exactly as if it had been typed. PEM certificates (parseCertificates) live here too:
// both the typed and the imported ones go through the same check.
import { X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { OutboundRefused, outboundFetch, type OutboundPolicy } from '../http/outbound';
import { localized, type LocalizedText } from '../i18n/catalogs';
import { commandRefusal } from '../organizations/refusal-codes';

const METADATA_NS = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
const SAML2_PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const HTTP_REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
/** A connection holds at most this many signing certificates (a key roll needs two; some IdPs publish three). */
export const MAX_SIGNING_CERTIFICATES = 5;
/** Federation metadata of a large tenant (Entra ID, AD FS) is tens of kilobytes; a megabyte is plenty. */
export const MAX_METADATA_BYTES = 1024 * 1024;
/** Pasted into the console's form: half of that, so that the whole form stays under Next's 1 MB server-action body. */
export const MAX_PASTED_METADATA_CHARS = 512 * 1024;
const METADATA_TIMEOUT_MS = 5_000;

export interface IdpMetadata {
  entityId: string;
  ssoUrl: string;
  certificates: string[];
}

/** The certificates of a connection (PEM, one or more), each readable, or undefined. */
export function parseCertificates(pem: string): string[] | undefined {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (!blocks || blocks.length === 0 || blocks.length > MAX_SIGNING_CERTIFICATES) return undefined;
  try {
    for (const block of blocks) new X509Certificate(block);
  } catch {
    return undefined;
  }
  return blocks;
}

const refuse = (text: LocalizedText, field: string): never => {
  throw commandRefusal(400, text, field);
};

const elementChildren = (parent: Element, localName: string, namespace: string): Element[] => {
  const found: Element[] = [];
  for (let child = parent.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === 1 && (child as Element).localName === localName && (child as Element).namespaceURI === namespace) found.push(child as Element);
  }
  return found;
};

/** A base64 DER certificate as PEM (RFC 7468 §2: 64-character lines), or undefined when it is not one. */
function pemOf(base64: string): string | undefined {
  const compact = base64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) return undefined;
  const pem = `-----BEGIN CERTIFICATE-----\n${compact.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----`;
  try {
    new X509Certificate(pem);
    return pem;
  } catch {
    return undefined;
  }
}

/**
 * Reads an identity provider's metadata document. `field` names the form field a refusal stands next to (the pasted
 * text or the address it came from). An EntitiesDescriptor is accepted when exactly one of its entities is an IdP.
 */
export function readIdpMetadata(xml: string, field: string): IdpMetadata {
  if (xml.length > MAX_METADATA_BYTES || /<!DOCTYPE/i.test(xml)) refuse(localized('refusals.connections.metadata.notMetadata'), field);
  let root: Element | null = null;
  try {
    let broken = false;
    const document = new DOMParser({ errorHandler: { warning: () => {}, error: () => (broken = true), fatalError: () => (broken = true) } }).parseFromString(xml.trim(), 'text/xml');
    root = broken ? null : document.documentElement;
  } catch {
    root = null;
  }
  if (!root || root.namespaceURI !== METADATA_NS) return refuse(localized('refusals.connections.metadata.notMetadata'), field);
  const entities = root.localName === 'EntityDescriptor' ? [root] : root.localName === 'EntitiesDescriptor' ? elementChildren(root, 'EntityDescriptor', METADATA_NS) : [];
  const idps = entities.flatMap((entity) =>
    elementChildren(entity, 'IDPSSODescriptor', METADATA_NS)
      .filter((descriptor) => (descriptor.getAttribute('protocolSupportEnumeration') ?? '').split(/\s+/).includes(SAML2_PROTOCOL))
      .map((descriptor) => ({ entity, descriptor })),
  );
  if (idps.length === 0) return refuse(localized('refusals.connections.metadata.notMetadata'), field);
  if (idps.length > 1) return refuse(localized('refusals.connections.metadata.severalIdps'), field);
  const { entity, descriptor } = idps[0]!;

  const services = elementChildren(descriptor, 'SingleSignOnService', METADATA_NS);
  const redirect = services.find((service) => service.getAttribute('Binding') === HTTP_REDIRECT);
  if (!redirect) return refuse(services.length > 0 ? localized('refusals.connections.metadata.postOnly') : localized('refusals.connections.metadata.noSso'), field);

  const certificates = new Set<string>();
  for (const key of elementChildren(descriptor, 'KeyDescriptor', METADATA_NS)) {
    const use = key.getAttribute('use');
    if (use && use !== 'signing') continue;
    const values = key.getElementsByTagNameNS(DSIG_NS, 'X509Certificate');
    for (let index = 0; index < values.length; index++) {
      const pem = pemOf(values.item(index)?.textContent ?? '');
      if (pem) certificates.add(pem);
    }
  }
  if (certificates.size === 0) refuse(localized('refusals.connections.metadata.noCertificate'), field);
  if (certificates.size > MAX_SIGNING_CERTIFICATES) refuse(localized('refusals.connections.metadata.tooManyCertificates'), field);
  return { entityId: (entity.getAttribute('entityID') ?? '').trim(), ssoUrl: (redirect.getAttribute('Location') ?? '').trim(), certificates: [...certificates] };
}

/**
 * Fetches the metadata at `rawUrl` through the outbound guard (no redirect followed, capped in time and size) and
 * reads it. A query string is allowed: Entra ID's federation metadata URL carries the app's id in one.
 */
export async function fetchIdpMetadata(outbound: OutboundPolicy, rawUrl: string, field: string): Promise<IdpMetadata> {
  let url: URL | undefined;
  try {
    url = new URL(rawUrl.trim());
  } catch {
    url = undefined;
  }
  if (!url || rawUrl.trim().length > 2000 || url.username || url.password || (url.protocol !== 'https:' && !(outbound.allowLoopback && url.protocol === 'http:'))) {
    throw commandRefusal(400, localized('refusals.connections.metadata.invalidUrl'), field);
  }
  url.hash = '';
  let status: number;
  let text: string | undefined;
  try {
    const answer = await outboundFetch(outbound, { timeoutMs: METADATA_TIMEOUT_MS, maxBytes: MAX_METADATA_BYTES })(url, { headers: { accept: 'application/samlmetadata+xml, application/xml;q=0.9, text/xml;q=0.8' } });
    status = answer.status;
    if (status === 200) text = await answer.text();
  } catch (error) {
    if (error instanceof OutboundRefused && error.reason === 'private_network') throw commandRefusal(400, localized('refusals.connections.privateNetwork', { issuer: url.host }), field);
    throw commandRefusal(400, localized('refusals.connections.metadata.unreachable', { url: url.href }), field);
  }
  if (text === undefined) throw commandRefusal(400, localized('refusals.connections.metadata.answered', { url: url.href, status }), field);
  return readIdpMetadata(text, field);
}
