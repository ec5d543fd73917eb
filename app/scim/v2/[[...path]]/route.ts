// /scim/v2/* – an organization's SCIM 2.0 service (lib/identity/scim/http.ts does the work).
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { handleScimRequest } from '@/lib/identity/scim/http';
import { db, runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

async function handle(request: Request, { params }: { params: Promise<{ path?: string[] }> }): Promise<Response> {
  // Next.js gives the segments decoded already.
  const path = (await params).path ?? [];
  const response = await handleScimRequest(db(), request, { issuer: runtime().env.PORTICO_ISSUER, path, ip: clientIpFromHeaders(request.headers) });
  return response;
}

export const GET = handle;
export const POST = handle;
export const PUT = handle;
export const PATCH = handle;
export const DELETE = handle;
