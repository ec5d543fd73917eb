// The client's IP address, decided once by the HTTP server (server.ts) and handed to Next.js in a header that no
// client can set: the server overwrites whatever arrived under that name.
import type { IncomingMessage } from 'node:http';

export const CLIENT_IP_HEADER = 'x-portico-client-ip';

export function clientIpOf(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return req.socket.remoteAddress ?? 'unknown';
}

/** For route handlers: the address server.ts recorded. */
export function clientIpFromHeaders(headers: Headers): string {
  return headers.get(CLIENT_IP_HEADER) ?? 'unknown';
}
