import 'server-only';
import type { FederationDeps } from '@/lib/identity/federation/core';
import { runtime } from '@/lib/runtime';
import { deliveryPolicy } from '@/lib/http/outbound';

/** The federation's dependencies as configured: the outbound guard, the at-rest key, Portico's issuer. */
export function federationDeps(): FederationDeps {
  const { env, atRestKey } = runtime();
  return { outbound: deliveryPolicy(env), atRestKey, issuer: env.PORTICO_ISSUER };
}
