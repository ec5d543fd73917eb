// The fixed demo data the e2e servers are started with (e2e/support/serve.ts) and the tests sign in with.
import { env } from '../../lib/env';

/**
 * The specs of the shared e2e servers run on E2E_LANES Playwright workers, each against a server of its own (port,
 * data folder, database, mailbox and the loopback listeners the specs use), so that no spec waits for another lane's
 * and none sees another lane's data. A lane is the worker's slot (TEST_PARALLEL_INDEX, set by Playwright in each
 * worker) or, for the server process itself, PORTICO_E2E_LANE (set by playwright.config.ts).
 */
export const E2E_LANES = 2;
export const E2E_LANE = env().PORTICO_E2E_LANE ?? env().TEST_PARALLEL_INDEX ?? 0;
/** Lane 0's ports are the ones written in the specs; every other lane's are shifted by a stride no spec's range reaches. */
export function lanePort(port: number, lane: number = E2E_LANE): number {
  return port + lane * 100;
}
/** What a lane's server process (serve-lane.ts) prints once it answers, and where serve.ts answers once all do. */
export const LANE_READY = 'e2e lane ready';
export const E2E_READY_PORT = 3209;
/** Lane 0's server; lane N's is lanePort(E2E_BASE_PORT, N). */
export const E2E_BASE_PORT = 3210;
export const E2E_PORT = lanePort(E2E_BASE_PORT);
export const E2E_ISSUER = `http://localhost:${E2E_PORT}`;
export const DEMO = {
  email: 'owner@e2e.portico.test',
  password: 'e2e-demo-password-42',
  clientId: 'e2e-demo-app-client',
  clientSecret: 'e2e-demo-app-secret-0123456789abcdefghijklmnop',
  redirectUri: `http://127.0.0.1:${lanePort(4999)}/callback`,
} as const;

/** The redirect URI of the clients the tests register with a script (e2e/support/mcp-oauth.ts). */
export const SCRIPTED_CLIENT_REDIRECT_URI = `http://127.0.0.1:${lanePort(4994)}/callback`;

export function demoEnvironment(port: number): Record<string, string> {
  return {
    PORTICO_ISSUER: `http://localhost:${port}`,
    PORTICO_DEMO_EMAIL: DEMO.email,
    PORTICO_DEMO_PASSWORD: DEMO.password,
    PORTICO_DEMO_CLIENT_ID: DEMO.clientId,
    PORTICO_DEMO_CLIENT_SECRET: DEMO.clientSecret,
    PORTICO_DEMO_REDIRECT_URI: DEMO.redirectUri,
    NODE_ENV: 'production',
  };
}

/** The test MCP host whose origin the e2e Portico lists in PORTICO_OPERATOR_FRAME_ANCESTORS, and one it does not. */
export const MCP_HOST_PORT = lanePort(4989);
export const FOREIGN_HOST_PORT = lanePort(4988);

/**
 * The e2e server's mail goes over real SMTP to a mailbox (test/support/mailbox.ts) that e2e/support/serve.ts runs
 * beside it; the tests read what arrived through that process's small HTTP view of it.
 */
export const MAILBOX_SMTP_PORT = lanePort(4925);
export const MAILBOX_HTTP_BASE_PORT = 4926;
export const MAILBOX_HTTP_PORT = lanePort(MAILBOX_HTTP_BASE_PORT);

/** @modelcontextprotocol/server-everything, the lane's upstream MCP server for the gateway (e2e/gateway.spec.ts). */
export const EVERYTHING_PORT = lanePort(4984);
export const EVERYTHING_URL = `http://127.0.0.1:${EVERYTHING_PORT}/mcp`;
