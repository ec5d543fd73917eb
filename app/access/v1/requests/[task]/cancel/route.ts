// AuthZEN Access Request and Approval Profile (Draft 1): the PEP cancels a pending request (lib/authzen/access-requests.ts).
import { accessRequestCancelRoute } from '@/lib/authzen/routes';

export const dynamic = 'force-dynamic';

export async function POST(request: Request, context: { params: Promise<{ task: string }> }): Promise<Response> {
  return accessRequestCancelRoute(request, (await context.params).task);
}
