// Portico's own protected resource: its MCP server at `<issuer>/api/mcp` and the REST API accept access tokens
// whose audience is this one resource identifier (RFC 8707). It belongs to no organization: each request is
// authorized against the person's role in the organization it touches.
export function porticoApiResource(issuer: string): string {
  return `${issuer}/api/mcp`;
}

/**
 * What a token for Portico's own API may carry: `mcp` (its tools and the REST API, with the person's permissions)
 * and `agents:tokens` (obtaining tokens for the agents the person may use). The second is never advertised, so MCP
 * clients (which ask for what the resource metadata lists) do not request it; a client must ask for it by name, and
 * the consent screen says what it means.
 */
export const PORTICO_API_SCOPES = ['mcp', 'agents:tokens'] as const;
export const PORTICO_API_ADVERTISED_SCOPES = ['mcp'] as const;
