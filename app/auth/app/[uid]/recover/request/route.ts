// POST /auth/app/<uid>/recover/request – "Forgot password?" from an app's sign-in card (the reset mail carries the
// app's organization's name; the audit event goes to its log).
import { interactionPath, isInteractionUid } from '@/lib/oidc/interactions';
import { handleRecoveryRequest } from '../../../../../account/_lib/recovery';
import { signInOrganization } from '../../../_lib/sign-in-organization';

export const dynamic = 'force-dynamic';

export async function POST(request: Request, { params }: { params: Promise<{ uid: string }> }): Promise<Response> {
  const { uid } = await params;
  if (!isInteractionUid(uid)) return new Response('Not found', { status: 404 });
  const org = await signInOrganization(uid, request.headers.get('cookie'));
  return handleRecoveryRequest(request, { page: `${interactionPath(uid)}/recover`, orgId: org?.id ?? null, organizationName: org ? (org.brand?.displayName ?? org.name) : undefined });
}
