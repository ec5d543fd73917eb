// Every request Portico makes to an address someone else chose (a client ID metadata document, an app's publish
// origin for surface verification) goes through here. The address is checked BEFORE any connection: the host is
// resolved once, every address it resolves to must be public unicast (ipaddr.js's classification: no loopback,
// private, link-local — cloud metadata lives there —, CGNAT, multicast, unspecified, reserved, unique-local,
// IPv4-mapped or translated IPv6), and the socket then connects to the address that was checked, with no second
// lookup, so DNS rebinding between check and connect is impossible. No redirects are followed; the answer is
// capped in size and time. Failures say what Portico refused, never which network error happened: an admin or a
// client must not be able to scan the network through Portico's answers.
//
// Deliveries an organization's admins configure (webhooks, Shared Signals push, back-channel logout, SSO discovery
// and keys, ID-JAG keys, app surface verification) may also reach the private networks and hosts the installation
// names in PORTICO_OUTBOUND_ALLOWED_NETWORKS (`deliveryPolicy`): a self-hosted identity provider mostly talks to
// intranet receivers. Loopback, link-local and the cloud metadata addresses stay refused there unless an entry
// names the address itself (a /32 or /128), never through a wider network or a host name. Client ID metadata
// documents, which any client on the internet can point Portico at, never get the list.
import { lookup as systemLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** PORTICO_OUTBOUND_ALLOWED_NETWORKS, parsed (lib/env.ts): networks in CIDR form, and host name patterns. */
export interface AllowedNetworks {
  /** `10.0.0.0/8`, `fd00::/8`, `10.1.2.3/32`: a single address is written with its full prefix. */
  networks: readonly string[];
  /** `hooks.corp.example`, `*.corp.example`: these names may resolve to private addresses. */
  hosts: readonly string[];
}

export interface OutboundPolicy {
  /** Development and tests only (PORTICO_OUTBOUND_ALLOW_LOOPBACK): loopback addresses are allowed too. */
  allowLoopback: boolean;
  /** The installation's private networks and hosts that deliveries may reach (never given to CIMD fetches). */
  allowedNetworks?: AllowedNetworks;
  /** Resolves a host name; tests may give their own (the system resolver otherwise). */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
}

export type OutboundRefusalReason = 'address_not_allowed' | 'private_network' | 'unresolvable' | 'unreachable' | 'timeout' | 'too_large' | 'not_http';

/** A request Portico did not make, or that failed: the reason is one of a few words, the same for every network error. */
export class OutboundRefused extends Error {
  constructor(readonly reason: OutboundRefusalReason) {
    super(
      {
        address_not_allowed: 'the address is not a public internet address',
        private_network: 'the address is on a private network that PORTICO_OUTBOUND_ALLOWED_NETWORKS does not name',
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

/** Addresses a cloud platform serves its instance metadata (and credentials) on, whatever range they fall in. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '168.63.129.16']);
/**
 * The IPv6 networks of those services, inside the unique-local range a company's own network may be named by
 * (`fd00::/8`): AWS (fd00:ec2::254, and EKS Pod Identity fd00:ec2::23), Google Cloud (fd20:ce::254), Oracle Cloud
 * (fd00:c1::a9fe:a9fe). Opened only by an entry naming the address itself, like loopback.
 */
const METADATA_NETWORKS = ['fd00:ec2::/32', 'fd20:ce::/32', 'fd00:c1::/32'].map((network) => ipaddr.parseCIDR(network));

/** Ranges a wider allowed network or a host name never opens: only an entry naming the address itself does. */
const NAMED_ONLY_RANGES = new Set(['loopback', 'linkLocal']);
/** Ranges an allowed network may open; every other non-public range (multicast, broadcast, unspecified, reserved, translation) stays closed. */
const PRIVATE_RANGES = new Set(['private', 'uniqueLocal', 'carrierGradeNat', 'loopback', 'linkLocal']);

type Verdict = 'allowed' | 'not_public' | 'private';

function parsedAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return undefined;
  const parsed = ipaddr.parse(bare);
  // An IPv4-mapped IPv6 address is the IPv4 address it carries.
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
}

/** Whether a host name matches one of the patterns (`name`, or `*.domain` for its subdomains). */
function hostMatches(hostname: string, patterns: readonly string[]): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return patterns.some((pattern) => (pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1 : host === pattern));
}

/** The address under the policy, and when refused whether a setting could allow it (a private address). */
function verdictOf(address: string, policy: Pick<OutboundPolicy, 'allowLoopback' | 'allowedNetworks'>, hostname?: string): Verdict {
  const parsed = parsedAddress(address);
  if (!parsed) return 'not_public';
  const range = parsed.range();
  // ipaddr.js calls the deprecated IPv4-compatible block ::/96 (RFC 4291 §2.5.5.1: ::7f00:1 is 127.0.0.1) unicast.
  if (range !== 'loopback' && parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) return 'not_public';
  const metadata =
    METADATA_ADDRESSES.has(parsed.toString()) || METADATA_NETWORKS.some(([base, bits]) => base.kind() === parsed.kind() && parsed.match(base, bits));
  if (range === 'unicast' && !metadata) return 'allowed';
  if (policy.allowLoopback && range === 'loopback') return 'allowed';
  if (!PRIVATE_RANGES.has(range) && !metadata) return 'not_public';
  const allowed = policy.allowedNetworks;
  if (allowed) {
    const namedOnly = metadata || NAMED_ONLY_RANGES.has(range);
    for (const network of allowed.networks) {
      const [base, bits] = ipaddr.parseCIDR(network);
      if (base.kind() !== parsed.kind() || !parsed.match(base, bits)) continue;
      if (!namedOnly || bits === (parsed.kind() === 'ipv4' ? 32 : 128)) return 'allowed';
    }
    if (!namedOnly && hostname && hostMatches(hostname, allowed.hosts)) return 'allowed';
  }
  // Only an intranet address is answered with the setting that could allow it; loopback, link-local and metadata
  // addresses are simply not public (the setting opens them one by one, but Portico does not suggest it).
  return !metadata && !NAMED_ONLY_RANGES.has(range) ? 'private' : 'not_public';
}

/** True when Portico may connect to this address under the policy (`hostname`: the name it was resolved from). */
export function isAllowedAddress(address: string, policy: Pick<OutboundPolicy, 'allowLoopback' | 'allowedNetworks'>, hostname?: string): boolean {
  return verdictOf(address, policy, hostname) === 'allowed';
}

/** The refusal for an address the policy does not allow: a private one names the setting that could allow it. */
function refusalOf(verdict: Exclude<Verdict, 'allowed'>): OutboundRefused {
  return new OutboundRefused(verdict === 'private' ? 'private_network' : 'address_not_allowed');
}

/**
 * The policy of deliveries an organization's admins configure: the installation's allowed networks and hosts on top
 * of the public internet (never used for client ID metadata documents).
 */
export function deliveryPolicy(env: { outboundAllowLoopback: boolean; outboundAllowedNetworks: AllowedNetworks }): OutboundPolicy {
  return { allowLoopback: env.outboundAllowLoopback, allowedNetworks: env.outboundAllowedNetworks };
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
    const verdict = verdictOf(bare, policy);
    if (verdict !== 'allowed') throw refusalOf(verdict);
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
  const refused = addresses.map((entry) => verdictOf(entry.address, policy, bare)).find((verdict) => verdict !== 'allowed');
  if (refused) throw refusalOf(refused);
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
  /**
   * Keep the connection for the next request to the same host at the same checked addresses (the gateway's calls to
   * an upstream MCP server): the address is still checked before every request, and a connection is only ever made
   * to an address that was checked. Off by default: a delivery opens one connection and closes it.
   */
  keepAlive?: boolean;
}

/** Keep-alive agents by destination and checked addresses; the oldest is closed beyond the limit. */
const keptAgents = new Map<string, HttpAgent>();
const KEPT_AGENTS_LIMIT = 256;

function keptAgentFor(url: URL, addresses: LookupAddress[]): HttpAgent {
  const key = `${url.protocol}//${url.host}|${addresses.map((address) => address.address).sort().join(',')}`;
  let agent = keptAgents.get(key);
  if (!agent) {
    if (keptAgents.size >= KEPT_AGENTS_LIMIT) {
      const [oldest, old] = keptAgents.entries().next().value!;
      keptAgents.delete(oldest);
      old.destroy();
    }
    const options = { keepAlive: true, maxSockets: 256, maxFreeSockets: 16, lookup: pinnedLookup(addresses) };
    agent = url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
    keptAgents.set(key, agent);
  }
  return agent;
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
      init.keepAlive ? { method: init.method ?? 'GET', headers, signal, agent: keptAgentFor(url, addresses) } : { method: init.method ?? 'GET', headers, lookup: pinnedLookup(addresses), signal, agent: false },
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
export function outboundFetch(policy: OutboundPolicy, caps: { timeoutMs: number; maxBytes: number; keepAlive?: boolean }): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : input;
    const body = typeof init?.body === 'string' ? init.body : init?.body instanceof URLSearchParams ? init.body.toString() : undefined;
    return outboundRequest(url, { method: init?.method, headers: init?.headers, body, signal: init?.signal, ...caps }, policy);
  }) as typeof fetch;
}
