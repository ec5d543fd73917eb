// Which surface an approval request reaches its operator through. Pure: chosen only from the configuration, the
// request's eligibility for the central and what the MCP connection advertised in `initialize` (stored with the
// session), never from a client's name, brand or user agent. Anything missing or malformed falls back, one step at
// a time, to the external HTTPS link, and from there to the CLI. The table is in docs/approval-surfaces.md.

/** The MCP Apps extension (SEP-1865) and the MIME type of its views. */
export const MCP_APPS_EXTENSION = 'io.modelcontextprotocol/ui';
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';

export type ApprovalChannel =
  /** The MCP Apps view `ui://portico/authorizations-v1.html`, with the HTTPS link as text too. */
  | 'mcp_app'
  /** URL-mode elicitation: the client offers to open the central's page for the request. */
  | 'elicitation_url'
  /** Form-mode elicitation: the person confirms or withdraws the request (intent only, never a credential). */
  | 'elicitation_form'
  /** The request's HTTPS link to the external central. */
  | 'central'
  /** The operator decides with `npm run portico -- approvals …`. */
  | 'cli';

export interface ChannelInput {
  /** PORTICO_APPROVAL_SURFACE. */
  surface: 'link' | 'adaptive';
  /** PORTICO_CENTRAL_ENABLED: the portal exists. */
  centralEnabled: boolean;
  /** Temporary, specific and not elevated: the central may decide it (the broker's rule). */
  centralEligible: boolean;
  /** The `capabilities` the client sent in `initialize`, as stored; undefined over REST. */
  clientCapabilities: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The client advertised MCP Apps views of our MIME type: `extensions["io.modelcontextprotocol/ui"].mimeTypes`. */
export function advertisesMcpApps(capabilities: unknown): boolean {
  if (!isObject(capabilities) || !isObject(capabilities.extensions)) return false;
  const ui = capabilities.extensions[MCP_APPS_EXTENSION];
  return isObject(ui) && Array.isArray(ui.mimeTypes) && ui.mimeTypes.includes(MCP_APP_MIME_TYPE);
}

/**
 * The elicitation modes the client advertised (MCP 2025-11-25 §Elicitation): `url` and `form` as objects; an empty
 * `elicitation` object means form only (the spec's backwards-compatible reading). `true`, strings and lists count
 * as nothing.
 */
export function advertisedElicitationModes(capabilities: unknown): { url: boolean; form: boolean } {
  if (!isObject(capabilities) || !isObject(capabilities.elicitation)) return { url: false, form: false };
  const elicitation = capabilities.elicitation;
  if (Object.keys(elicitation).length === 0) return { url: false, form: true };
  return { url: isObject(elicitation.url), form: isObject(elicitation.form) };
}

export function selectApprovalChannel(input: ChannelInput): ApprovalChannel {
  // Permanent, broad or elevated requests, or no central at all: the CLI, whatever the client can show.
  if (!input.centralEnabled || !input.centralEligible) return 'cli';
  // The default: the external link, even for a client that advertises more.
  if (input.surface !== 'adaptive') return 'central';
  if (advertisesMcpApps(input.clientCapabilities)) return 'mcp_app';
  const elicitation = advertisedElicitationModes(input.clientCapabilities);
  if (elicitation.url) return 'elicitation_url';
  if (elicitation.form) return 'elicitation_form';
  return 'central';
}
