// Every request Portico makes to an address someone else chose (a client ID metadata document, an app's publish
// origin for surface verification) goes through here. The address is checked BEFORE any connection: the host is
// resolved once, every address it resolves to must be public unicast (ipaddr.js's classification: no loopback,
// private, link-local — cloud metadata lives there —, CGNAT, multicast, unspecified, reserved, unique-local,
// IPv4-mapped or translated IPv6), and the socket then connects to the address that was checked, with no second
// lookup, so DNS rebinding between check and connect is impossible. No redirects are followed; the answer is
// capped in size and time. Failures say what Portico refused, never which network error happened: an admin or a
// client must not be able to scan the network through Portico's answers.
import { lookup as systemLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface OutboundPolicy {
  /** Development and tests only (PORTICO_OUTBOUND_ALLOW_LOOPBACK): loopback addresses are allowed too. */
  allowLoopback: boolean;
  /** Resolves a host name; tests may give their own (the system resolver otherwise). */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
}

export type OutboundRefusalReason = 'address_not_allowed' | 'unresolvable' | 'unreachable' | 'timeout' | 'too_large' | 'not_http';

/** A request Portico did not make, or that failed: the reason is one of a few words, the same for every network error. */
export class OutboundRefused extends Error {
  constructor(readonly reason: OutboundRefusalReason) {
    super(
      {
        address_not_allowed: 'the address is not a public internet address',
        unresolvable: 'the host name does not resolve',
        unreachable: 'the server could not be reached',
        timeout: 'the server did not answer in time',
        too_large: 'the answer is too large',
        not_http: 'only http and https addresses can be fetched',
      }[reason],
    );
    this.name = 'OutboundRefused';
  }
}

/** True when Portico may connect to this address under the policy. */
export function isAllowedAddress(address: string, policy: Pick<OutboundPolicy, 'allowLoopback'>): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return false;
  let parsed = ipaddr.parse(bare);
  // An IPv4-mapped IPv6 address is the IPv4 address it carries.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  // ipaddr.js calls the deprecated IPv4-compatible block ::/96 (RFC 4291 §2.5.5.1: ::7f00:1 is 127.0.0.1) unicast.
  if (range !== 'loopback' && parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) return false;
  return range === 'unicast' || (policy.allowLoopback && range === 'loopback');
}

function defaultResolve(hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => systemLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));
}

/** The lookup the socket uses: the addresses were checked before; it hands them over as they are. */
function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  }) as LookupFunction;
}

async function checkedAddresses(hostname: string, policy: OutboundPolicy): Promise<LookupAddress[]> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (isIP(bare)) {
    if (!isAllowedAddress(bare, policy)) throw new OutboundRefused('address_not_allowed');
    return [{ address: bare, family: isIP(bare) }];
  }
  let addresses: LookupAddress[];
  try {
    addresses = await (policy.resolve ?? defaultResolve)(bare);
  } catch {
    throw new OutboundRefused('unresolvable');
  }
  // Every address must pass: a name that resolves to one public and one private address is refused whole.
  if (addresses.length === 0) throw new OutboundRefused('unresolvable');
  if (!addresses.every((entry) => isAllowedAddress(entry.address, policy))) throw new OutboundRefused('address_not_allowed');
  return addresses;
}

/**
 * Checks a destination before it is saved (a webhook endpoint): the URL's host must resolve, and only to addresses
 * the policy allows. Every request checks again before it connects (the address may have changed since).
 */
export async function assertAllowedDestination(target: string | URL, policy: OutboundPolicy): Promise<void> {
  const url = new URL(target);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new OutboundRefused('not_http');
  await checkedAddresses(url.hostname, policy);
}

export interface OutboundRequest {
  method?: string;
  headers?: HeadersInit;
  body?: string;
  /** Both caps always apply: the whole exchange, and the answer's size. */
  timeoutMs: number;
  maxBytes: number;
  /**
   * What an answer longer than maxBytes does: 'refuse' (the default) throws too_large; 'truncate' keeps the status
   * and headers and cuts the body, for callers that decide on the status alone (a 200 is a 200 however long).
   */
  tooLarge?: 'refuse' | 'truncate';
  /** Another signal that may end the request sooner (a caller's own timeout). */
  signal?: AbortSignal | null;
}

/** One request to an outside address, under the policy. Redirects come back as they are (3xx), never followed. */
export async function outboundRequest(target: string | URL, init: OutboundRequest, policy: OutboundPolicy): Promise<Response> {
  const url = new URL(target);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new OutboundRefused('not_http');
  const deadline = AbortSignal.timeout(init.timeoutMs);
  const signal = init.signal ? AbortSignal.any([deadline, init.signal]) : deadline;
  const addresses = await checkedAddresses(url.hostname, policy);
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => (headers[name] = value));

  const message = await new Promise<IncomingMessage>((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      { method: init.method ?? 'GET', headers, lookup: pinnedLookup(addresses), signal, agent: false },
      resolve,
    );
    request.on('error', () => reject(new OutboundRefused(signal.aborted ? 'timeout' : 'unreachable')));
    request.end(init.body);
  });

  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of message) {
      size += (chunk as Buffer).length;
      if (size > init.maxBytes) {
        message.destroy();
        if (init.tooLarge === 'truncate') break;
        throw new OutboundRefused('too_large');
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof OutboundRefused) throw error;
    throw new OutboundRefused(signal.aborted ? 'timeout' : 'unreachable');
  }
  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(message.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) responseHeaders.append(name, item);
  }
  const status = message.statusCode ?? 502;
  const noBody = status === 204 || status === 304 || (status >= 100 && status < 200);
  return new Response(noBody ? null : Buffer.concat(chunks), { status, headers: responseHeaders });
}

/** A fetch-shaped function over outboundRequest, for code that takes a fetch (oidc-provider's `fetch` option). */
export function outboundFetch(policy: OutboundPolicy, caps: { timeoutMs: number; maxBytes: number }): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : input;
    const body = typeof init?.body === 'string' ? init.body : init?.body instanceof URLSearchParams ? init.body.toString() : undefined;
    return outboundRequest(url, { method: init?.method, headers: init?.headers, body, signal: init?.signal, ...caps }, policy);
  }) as typeof fetch;
}
