// OpenID AuthZEN Authorization API 1.0: the Access Evaluation API (§6) (lib/authzen/).
import { evaluationRoute } from '@/lib/authzen/routes';

export const dynamic = 'force-dynamic';

export const POST = evaluationRoute;
