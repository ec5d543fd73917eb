// POST /auth/app/<uid>/recover/request – "Forgot password?" from an app's sign-in card (the reset mail carries the
// app's organization's name; the audit event goes to its log).
import { handleRecoveryRequest } from '../../../../../account/_lib/recovery';
import { interactionRoute } from '../../../_lib/responses';
import { signInOrganization } from '../../../_lib/sign-in-organization';

export const dynamic = 'force-dynamic';

export const POST = interactionRoute(async (request, { uid, card, cookieHeader }) => {
  const org = await signInOrganization(uid, cookieHeader);
  return handleRecoveryRequest(request, { page: `${card}/recover`, orgId: org?.id ?? null, organizationName: org ? (org.brand?.displayName ?? org.name) : undefined });
});
