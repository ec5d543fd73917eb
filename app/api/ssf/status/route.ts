// SSF 1.0 §8.1.2: a stream's status, read and set by its receiver (lib/ssf/streams.ts).
import { handleStatusRequest } from '@/lib/ssf/streams';
import { ssfContext } from '@/lib/ssf/context';

export const dynamic = 'force-dynamic';

const handle = (request: Request) => handleStatusRequest(ssfContext(), request);
export { handle as GET, handle as POST };
