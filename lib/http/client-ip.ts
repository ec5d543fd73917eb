// The client's IP address, decided once by the HTTP server (server.ts) and handed to Next.js in a header that no
// client can set: the server overwrites whatever arrived under that name.
import type { IncomingMessage } from 'node:http';

export const CLIENT_IP_HEADER = 'x-portico-client-ip';

export function clientIpOf(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    // The proxy in front of Portico appends the address it saw: the rightmost entry. Entries to its left came from
    // the client and prove nothing.
    const forwarded = req.headers['x-forwarded-for'];
    const last = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded)?.split(',').at(-1)?.trim();
    if (last) return last;
  }
  return req.socket.remoteAddress ?? 'unknown';
}

/** For route handlers: the address server.ts recorded. */
export function clientIpFromHeaders(headers: Headers): string {
  return headers.get(CLIENT_IP_HEADER) ?? 'unknown';
}
