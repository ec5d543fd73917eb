// AuthZEN Access Request and Approval Profile (Draft 1): the task status endpoint (lib/authzen/access-requests.ts).
import { accessRequestStatusRoute } from '@/lib/authzen/routes';

export const dynamic = 'force-dynamic';

export async function GET(request: Request, context: { params: Promise<{ task: string }> }): Promise<Response> {
  return accessRequestStatusRoute(request, (await context.params).task);
}
