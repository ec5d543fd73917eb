// A gateway server served beside the provider harness, as server.ts serves it: its MCP endpoint and its RFC 9728
// metadata at the harness's issuer (the routes object the harness was started with), on the loopback upstreams the
// tests start (the outbound guard allows loopback here only).
import { randomBytes } from 'node:crypto';
import { gatewayResourceMetadata, handleGatewayMcp, type GatewayDeps } from '../../lib/gateway/resource';
import type { GatewayServer } from '../../lib/gateway/servers';
import { publicJwksOf } from '../../lib/oidc/keys';
import type { TestDatabase } from './databases';
import type { Harness } from './provider-harness';

export type HarnessRoutes = Record<string, (request: Request) => Promise<Response>>;

/** Serves `server` at its resource's path on the harness; calls see `clientIp` as theirs. */
export function serveGatewayServer(routes: HarnessRoutes, server: GatewayServer, context: { database: TestDatabase; harness: Harness; atRestKey: Uint8Array; clientIp?: string }): void {
  const { database, harness, atRestKey } = context;
  const path = new URL(server.resource).pathname;
  const requestStateKey = stateKeys.get(atRestKey) ?? stateKeys.set(atRestKey, randomBytes(32)).get(atRestKey)!;
  const deps = (): GatewayDeps => ({
    db: database.db,
    issuer: harness.issuer,
    publicJwks: publicJwksOf(harness.keys),
    allowedHosts: [new URL(harness.issuer).host],
    allowedOrigins: [harness.issuer],
    clientIp: context.clientIp ?? '192.0.2.58',
    requestStateKey,
    atRestKey,
    outboundPolicy: { allowLoopback: true },
  });
  routes[path] = (request) => handleGatewayMcp(request, server.resource, deps());
  routes[`/.well-known/oauth-protected-resource${path}`] = async () => Response.json((await gatewayResourceMetadata(database.db, harness.issuer, server.resource)) ?? {});
}

/** One request-state key per installation (its at-rest key), as production derives one. */
const stateKeys = new WeakMap<Uint8Array, Uint8Array>();
