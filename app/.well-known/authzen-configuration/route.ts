// OpenID AuthZEN Authorization API 1.0 §9: the decision point's metadata (lib/authzen/pdp.ts).
import { authzenConfiguration } from '@/lib/authzen/pdp';
import { runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

export function GET(): Response {
  return Response.json(authzenConfiguration(runtime().env.PORTICO_ISSUER), { headers: { 'Cache-Control': 'max-age=300' } });
}
