// Where an approval request is decided, built in one place: the central's page for a request, the embedded
// central's, and the shape of a request id. Pure (no server imports): the MCP Apps view bundles it too.

const REQUEST_ID = /^apr_[A-Za-z0-9_-]{24}$/;

export function isApprovalRequestId(value: unknown): value is string {
  return typeof value === 'string' && REQUEST_ID.test(value);
}

/** The central's page for one request, as a path, or under an origin when one is given. */
export function centralRequestUrl(requestId: string, origin = ''): string {
  return `${origin}/central/requests/${requestId}`;
}

/** The embedded central's page for one request (framed by listed hosts only). */
export function embeddedCentralRequestUrl(requestId: string, origin = ''): string {
  return `${origin}/embedded-central/requests/${requestId}`;
}
