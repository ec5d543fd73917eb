// OpenID AuthZEN Authorization API 1.0: the Access Evaluations API (§7, batches) (lib/authzen/).
import { evaluationsRoute } from '@/lib/authzen/routes';

export const dynamic = 'force-dynamic';

// Served by server.ts (lib/authzen/node-route.ts) when Portico runs as itself; here when Next.js runs alone.
export function POST(request: Request): Promise<Response> {
  return evaluationsRoute(request);
}
