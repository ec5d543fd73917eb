// OpenID AuthZEN Authorization API 1.0: the Access Evaluations API (§7, batches) (lib/authzen/).
import { evaluationsRoute } from '@/lib/authzen/routes';

export const dynamic = 'force-dynamic';

export const POST = evaluationsRoute;
