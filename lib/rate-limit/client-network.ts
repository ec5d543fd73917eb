// The key a per-client limit counts under. One IPv6 customer usually holds a whole /64 (RFC 6177, RFC 7421: a /64
// is the smallest subnet a host gets), so counting full IPv6 addresses would hand out 2^64 separate budgets:
// IPv6 clients are counted per /64, IPv4 clients per address, and an IPv4-mapped IPv6 address (::ffff:a.b.c.d) as
// the IPv4 address it carries.
import ipaddr from 'ipaddr.js';

export function clientNetworkKey(address: string): string {
  const bare = address.trim().replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return address;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const [a, b, c, d] = v6.parts;
  return `${[a, b, c, d].map((part) => part!.toString(16)).join(':')}::/64`;
}
