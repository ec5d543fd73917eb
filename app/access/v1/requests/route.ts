// AuthZEN Access Request and Approval Profile (Draft 1): a requestable denial becomes a request in the approval
// central (lib/authzen/access-requests.ts).
import { accessRequestSubmitRoute } from '@/lib/authzen/routes';

export const dynamic = 'force-dynamic';

export const POST = accessRequestSubmitRoute;
