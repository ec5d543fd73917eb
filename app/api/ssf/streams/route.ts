// SSF 1.0 §8.1.1: an app's own client manages its streams (lib/ssf/streams.ts).
import { handleStreamsRequest } from '@/lib/ssf/streams';
import { ssfContext } from '@/lib/ssf/context';

export const dynamic = 'force-dynamic';

const handle = (request: Request) => handleStreamsRequest(ssfContext(), request);
export { handle as GET, handle as POST, handle as PATCH, handle as PUT, handle as DELETE };
