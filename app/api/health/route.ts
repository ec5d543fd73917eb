// GET /api/health – liveness: the process is up and serving requests. Touches nothing else.
export const dynamic = 'force-dynamic';

export function GET() {
  return Response.json({ status: 'ok' }, { headers: { 'Cache-Control': 'no-store' } });
}
