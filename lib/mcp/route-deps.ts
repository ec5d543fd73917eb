// What Portico's MCP endpoint and its REST twin run with in this process: one place for both routes.
import { clientIpFromHeaders } from '../http/client-ip';
import { db, runtime } from '../runtime';
import { requestStateKey, type PorticoMcpDeps } from './server';

/** Derived once for the process. */
let stateKey: Uint8Array | undefined;

export function porticoMcpDeps(request: Request): PorticoMcpDeps {
  const { env, publicJwks, riskLevels } = runtime();
  const issuerUrl = new URL(env.PORTICO_ISSUER);
  return {
    db: db(),
    issuer: env.PORTICO_ISSUER,
    publicJwks,
    levels: riskLevels,
    confirmationMode: env.PORTICO_CONFIRMATION_MODE,
    // DNS rebinding protection: only Portico's own host (and the addresses it listens on).
    allowedHosts: [issuerUrl.host, ...env.listenHosts.map((host) => `${host.includes(':') ? `[${host}]` : host}:${env.listenPort}`)],
    // Browsers only from Portico's own origin.
    allowedOrigins: [issuerUrl.origin],
    clientIp: clientIpFromHeaders(request.headers),
    approvals: { surface: env.PORTICO_APPROVAL_SURFACE, centralEnabled: env.PORTICO_CENTRAL_ENABLED, frameAncestors: env.PORTICO_OPERATOR_FRAME_ANCESTORS },
    notify: { issuer: env.PORTICO_ISSUER, atRestKey: runtime().atRestKey },
    requestStateKey: stateKey ??= requestStateKey(runtime().atRestKey),
  };
}
