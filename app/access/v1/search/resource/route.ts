// OpenID AuthZEN Authorization API 1.0 §8: the Resource Search API (lib/authzen/search.ts).
import { searchRoute } from '@/lib/authzen/routes';

export const dynamic = 'force-dynamic';

export const POST = searchRoute('resource');
