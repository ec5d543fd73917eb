// What the doors (console, REST, CLI) hand the workload commands of lib/organizations/agent-commands.ts: Portico's
// issuer (the audience a trust rule without its own accepts, and the token endpoint beside it) and the outbound
// guard's policy (a trust rule's JWKS URL is fetched through it; loopback only where the installation allows it).
// Kept apart from the commands so that they stay free of the runtime (tests pass their own).
import { deliveryPolicy } from '../http/outbound';
import { runtime } from '../runtime';
import type { WorkloadDeps } from './agent-commands';

export function workloadDoorDeps(): WorkloadDeps {
  const { env } = runtime();
  return { issuer: env.PORTICO_ISSUER, outbound: deliveryPolicy(env) };
}
