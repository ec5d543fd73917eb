// The running process's Shared Signals context for the API routes (app/api/ssf/*): its database, issuer, at-rest key,
// and the SET signer over its signing keys (what a request queues wakes the outbox when it commits).
import { db, runtime } from '../runtime';
import { securityEventSigner } from '../deliveries/channels/security-event';
import type { SsfContext } from './streams';

let signer: ReturnType<typeof securityEventSigner> | undefined;

export function ssfContext(): SsfContext {
  const current = runtime();
  signer ??= securityEventSigner({ issuer: current.env.PORTICO_ISSUER, signingKeys: current.signingKeys });
  return { db: db(), issuer: current.env.PORTICO_ISSUER, atRestKey: current.atRestKey, sign: signer };
}
