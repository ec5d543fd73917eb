// SSF 1.0 §8.1.4.2: the receiver asks for a verification event (lib/ssf/streams.ts).
import { handleVerificationRequest } from '@/lib/ssf/streams';
import { ssfContext } from '@/lib/ssf/context';

export const dynamic = 'force-dynamic';

export function POST(request: Request): Promise<Response> {
  return handleVerificationRequest(ssfContext(), request);
}
