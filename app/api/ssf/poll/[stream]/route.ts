// RFC 8936: a poll stream's receiver fetches and acknowledges its Security Event Tokens (lib/ssf/streams.ts).
import { handlePollRequest } from '@/lib/ssf/streams';
import { ssfContext } from '@/lib/ssf/context';

export const dynamic = 'force-dynamic';

export async function POST(request: Request, props: { params: Promise<{ stream: string }> }): Promise<Response> {
  return handlePollRequest(ssfContext(), request, (await props.params).stream);
}
