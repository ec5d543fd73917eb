// GET /central/requests?id=apr_… – the "open by id" form lands here and goes to the request's page.
import { centralRequestUrl, isApprovalRequestId } from '@/lib/approvals/central-urls';

export const dynamic = 'force-dynamic';

export function GET(request: Request): Response {
  const id = new URL(request.url).searchParams.get('id')?.trim() ?? '';
  const target = isApprovalRequestId(id) ? centralRequestUrl(id) : '/central';
  return new Response(null, { status: 303, headers: { Location: target } });
}
