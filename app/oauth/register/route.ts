// POST /oauth/register – dynamic client registration (RFC 7591) for public MCP clients: lib/clients/registration-http.ts.
import { handleRegistration } from '@/lib/clients/registration-http';
import { registrationLimits } from '@/lib/clients/registration';
import { db, runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

export async function POST(request: Request) {
  const { env } = runtime();
  return handleRegistration(request, { db: db(), limits: registrationLimits(env.PORTICO_DCR_PER_IP_PER_HOUR, env.PORTICO_DCR_GLOBAL_PER_HOUR) });
}
