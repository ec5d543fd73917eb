// Portico's MCP handler and its REST twin served for tests: each call makes one "instance" (its own HTTP server on
// loopback) on the shared test database, and porticoApiToken gets a real access token for Portico's own API.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendWebResponse, toWebRequest } from '../../app-kit/node-http';
import type { ConfirmationMode, RiskLevel } from '../../app-kit/risk';
import { registerClient, validateRegistration } from '../../lib/clients/registration';
import type { ApprovalSurfaceConfig } from '../../lib/mcp/context';
import { handlePorticoMcp } from '../../lib/mcp/server';
import { handleToolOverRest } from '../../lib/mcp/rest-tools';
import { porticoRiskLevels } from '../../lib/mcp/tools';
import { publicJwksOf } from '../../lib/oidc/keys';
import type { TestDatabase } from './databases';
import { authorizeMcpClient, tokenRequest, type Harness } from './provider-harness';

/** One installation's key for the signed state of 2026-07-28 rounds: every instance of a test shares it, as in production. */
const REQUEST_STATE_KEY = randomBytes(32);

export interface McpInstance {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startMcpInstance(
  database: TestDatabase,
  harness: Harness,
  options: {
    levels?: Record<string, RiskLevel>;
    now?: () => Date;
    extraAllowedHosts?: string[];
    extraAllowedOrigins?: string[];
    approvals?: ApprovalSurfaceConfig;
    elicitationWaitMs?: number;
    /** Who confirms approval_required calls; Portico's default (human) when not given. */
    confirmationMode?: ConfirmationMode;
  } = {},
): Promise<McpInstance> {
  let port = 0;
  const deps = () => ({
    db: database.db,
    issuer: harness.issuer,
    publicJwks: publicJwksOf(harness.keys),
    levels: options.levels ?? porticoRiskLevels({}),
    allowedHosts: [`127.0.0.1:${port}`, ...(options.extraAllowedHosts ?? [])],
    allowedOrigins: [harness.issuer, ...(options.extraAllowedOrigins ?? [])],
    clientIp: '192.0.2.9',
    now: options.now,
    approvals: options.approvals,
    elicitationWaitMs: options.elicitationWaitMs,
    confirmationMode: options.confirmationMode,
    requestStateKey: REQUEST_STATE_KEY,
  });
  const server: Server = createServer((req, res) => {
    void toWebRequest(req, `http://127.0.0.1:${port}`)
      .then((request) => {
        const tool = /^\/api\/tools\/([^/]+)$/.exec(new URL(request.url).pathname)?.[1];
        return tool ? handleToolOverRest(request, decodeURIComponent(tool), deps()) : handlePorticoMcp(request, deps());
      })
      .then((response) => sendWebResponse(res, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/api/mcp`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A dynamic client, authorized by the person for `<issuer>/api/mcp`: its access token. */
export async function porticoApiToken(harness: Harness, database: TestDatabase, email: string, redirectUri = 'http://127.0.0.1:45683/callback'): Promise<string> {
  const valid = validateRegistration({ client_name: 'Portico client', redirect_uris: [redirectUri] });
  if ('error' in valid) throw new Error(valid.error_description);
  const clientId = String((await registerClient(database.db, valid, '192.0.2.8')).client_id);
  const authorization = await authorizeMcpClient(harness, database, { clientId, redirectUri, resource: `${harness.issuer}/api/mcp`, email });
  const tokens = await tokenRequest(harness, clientId, {
    grant_type: 'authorization_code',
    code: authorization.callbackUrl!.searchParams.get('code')!,
    redirect_uri: redirectUri,
    code_verifier: authorization.codeVerifier,
  });
  return String(tokens.body.access_token);
}
