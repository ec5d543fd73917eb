// POST /account/recover/request – "Forgot password?" from the console or the central: mails a reset link when the
// email has an account, and answers the same either way.
import { handleRecoveryRequest } from '../../_lib/recovery';

export const dynamic = 'force-dynamic';

export function POST(request: Request): Promise<Response> {
  return handleRecoveryRequest(request, { page: '/account/recover' });
}
