import 'server-only';
import type { FederationDeps } from '@/lib/identity/federation';
import { runtime } from '@/lib/runtime';

/** The federation's dependencies as configured: the outbound guard, the at-rest key, Portico's issuer. */
export function federationDeps(): FederationDeps {
  const { env, atRestKey } = runtime();
  return { outbound: { allowLoopback: env.outboundAllowLoopback }, atRestKey, issuer: env.PORTICO_ISSUER };
}
