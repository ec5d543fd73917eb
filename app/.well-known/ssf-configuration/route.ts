// OpenID Shared Signals Framework 1.0 §7.2: the transmitter's configuration metadata (lib/ssf/streams.ts).
import { ssfConfiguration } from '@/lib/ssf/streams';
import { runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

export function GET(): Response {
  return Response.json(ssfConfiguration(runtime().env.PORTICO_ISSUER), { headers: { 'Cache-Control': 'max-age=300' } });
}
