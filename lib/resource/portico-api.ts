// Portico's own protected resource: its MCP server at `<issuer>/api/mcp` and the REST API accept access tokens
// whose audience is this one resource identifier (RFC 8707). It belongs to no organization: each request is
// authorized against the person's role in the organization it touches.
export function porticoApiResource(issuer: string): string {
  return `${issuer}/api/mcp`;
}

/** What a token for Portico's own API may carry. */
export const PORTICO_API_SCOPES = ['mcp'] as const;
