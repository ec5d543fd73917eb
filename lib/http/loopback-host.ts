// Hosts that never leave this machine: localhost (and *.localhost), 127.0.0.0/8 and [::1] (RFC 8252 §7.3, RFC 6761).
import { isIP } from 'node:net';

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1';
  return false;
}
