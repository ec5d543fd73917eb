// The fixed demo data the e2e server is started with (e2e/support/serve.ts) and the tests sign in with.
export const E2E_PORT = 3210;
export const E2E_ISSUER = `http://localhost:${E2E_PORT}`;
export const DEMO = {
  email: 'owner@e2e.portico.test',
  password: 'e2e-demo-password-42',
  clientId: 'e2e-demo-app-client',
  clientSecret: 'e2e-demo-app-secret-0123456789abcdefghijklmnop',
  redirectUri: 'http://127.0.0.1:4999/callback',
} as const;

/** The redirect URI of the clients the tests register with a script (e2e/support/mcp-oauth.ts). */
export const SCRIPTED_CLIENT_REDIRECT_URI = 'http://127.0.0.1:4994/callback';

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
export const MCP_HOST_PORT = 4989;
export const FOREIGN_HOST_PORT = 4988;

/**
 * The e2e server's mail goes over real SMTP to a mailbox (test/support/mailbox.ts) that e2e/support/serve.ts runs
 * beside it; the tests read what arrived through that process's small HTTP view of it.
 */
export const MAILBOX_SMTP_PORT = 4925;
export const MAILBOX_HTTP_PORT = 4926;
