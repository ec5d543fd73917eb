// GET /central/requests?id=apr_… – the "open by id" form lands here and goes to the request's page.
export const dynamic = 'force-dynamic';

export function GET(request: Request): Response {
  const id = new URL(request.url).searchParams.get('id')?.trim() ?? '';
  const target = /^apr_[A-Za-z0-9_-]{24}$/.test(id) ? `/central/requests/${id}` : '/central';
  return new Response(null, { status: 303, headers: { Location: target } });
}
