// The approval channel, chosen only from the configuration, the request's eligibility and the capabilities the
// client advertised: a table over well-formed and malformed capability sets. Malformed signals fall back.
import { describe, expect, it } from 'vitest';
import { selectApprovalChannel, type ApprovalChannel, type ChannelInput } from '../../lib/approvals/channel';

const UI = 'io.modelcontextprotocol/ui';
const MIME = 'text/html;profile=mcp-app';
const apps = { extensions: { [UI]: { mimeTypes: [MIME] } } };

const adaptive = (clientCapabilities: unknown): ChannelInput => ({ surface: 'adaptive', centralEnabled: true, centralEligible: true, clientCapabilities });

const table: [string, ChannelInput, ApprovalChannel][] = [
  // The default mode: the link, even for a client that can show more.
  ['link mode, MCP Apps advertised', { ...adaptive(apps), surface: 'link' }, 'central'],
  ['link mode, elicitation advertised', { ...adaptive({ elicitation: { url: {}, form: {} } }), surface: 'link' }, 'central'],
  ['link mode, nothing advertised', { ...adaptive({}), surface: 'link' }, 'central'],
  // Not eligible for the central, or no central: the CLI, whatever the mode and the client.
  ['permanent/broad/elevated request, adaptive, MCP Apps', { ...adaptive(apps), centralEligible: false }, 'cli'],
  ['permanent/broad/elevated request, link mode', { ...adaptive({}), surface: 'link', centralEligible: false }, 'cli'],
  ['central turned off, adaptive, MCP Apps', { ...adaptive(apps), centralEnabled: false }, 'cli'],
  ['central turned off, link mode', { ...adaptive({}), surface: 'link', centralEnabled: false }, 'cli'],
  // Adaptive, in priority order.
  ['MCP Apps with our MIME type', adaptive(apps), 'mcp_app'],
  ['MCP Apps and elicitation: Apps first', adaptive({ ...apps, elicitation: { url: {}, form: {} } }), 'mcp_app'],
  ['MCP Apps among other MIME types', adaptive({ extensions: { [UI]: { mimeTypes: ['text/plain', MIME] } } }), 'mcp_app'],
  ['URL and form elicitation: URL first', adaptive({ elicitation: { url: {}, form: {} } }), 'elicitation_url'],
  ['URL elicitation only', adaptive({ elicitation: { url: {} } }), 'elicitation_url'],
  ['form elicitation only', adaptive({ elicitation: { form: {} } }), 'elicitation_form'],
  ['empty elicitation object (form, per the spec)', adaptive({ elicitation: {} }), 'elicitation_form'],
  ['nothing advertised', adaptive({}), 'central'],
  ['no capabilities at all (REST)', adaptive(undefined), 'central'],
  // Malformed: booleans, strings, lists, null where objects are expected → the next step down.
  ['extensions is a list', adaptive({ extensions: [UI] }), 'central'],
  ['extensions is a string', adaptive({ extensions: UI }), 'central'],
  ['UI extension is true', adaptive({ extensions: { [UI]: true } }), 'central'],
  ['UI extension is a list', adaptive({ extensions: { [UI]: [MIME] } }), 'central'],
  ['mimeTypes is a string', adaptive({ extensions: { [UI]: { mimeTypes: MIME } } }), 'central'],
  ['mimeTypes is an object', adaptive({ extensions: { [UI]: { mimeTypes: { [MIME]: true } } } }), 'central'],
  ['mimeTypes without our MIME type', adaptive({ extensions: { [UI]: { mimeTypes: ['text/html'] } } }), 'central'],
  ['mimeTypes near miss (case, spacing)', adaptive({ extensions: { [UI]: { mimeTypes: ['text/html; profile=mcp-app', 'TEXT/HTML;PROFILE=MCP-APP'] } } }), 'central'],
  ['UI capability under another key', adaptive({ extensions: { 'io.modelcontextprotocol/apps': { mimeTypes: [MIME] } } }), 'central'],
  ['UI capability at the top level', adaptive({ [UI]: { mimeTypes: [MIME] } }), 'central'],
  ['malformed Apps, valid form elicitation → form', adaptive({ extensions: { [UI]: true }, elicitation: { form: {} } }), 'elicitation_form'],
  ['elicitation is true', adaptive({ elicitation: true }), 'central'],
  ['elicitation is a string', adaptive({ elicitation: 'url' }), 'central'],
  ['elicitation is a list', adaptive({ elicitation: ['url', 'form'] }), 'central'],
  ['elicitation is null', adaptive({ elicitation: null }), 'central'],
  ['elicitation.url is true', adaptive({ elicitation: { url: true } }), 'central'],
  ['elicitation.url is a list, form valid → form', adaptive({ elicitation: { url: [], form: {} } }), 'elicitation_form'],
  ['elicitation.form is a string', adaptive({ elicitation: { form: 'yes' } }), 'central'],
  ['capabilities is a list', adaptive([apps]), 'central'],
  ['capabilities is a string', adaptive('mcp_app'), 'central'],
  ['capabilities is null', adaptive(null), 'central'],
];

describe('approval channel selection', () => {
  it.each(table)('%s', (_name, input, expected) => {
    expect(selectApprovalChannel(input)).toBe(expected);
  });

  it('never looks at who the client says it is', () => {
    // The same capabilities under any client name give the same channel: the name is not even an input.
    const input = adaptive({ elicitation: { form: {} }, clientInfo: { name: 'claude-ai' } });
    expect(selectApprovalChannel(input)).toBe('elicitation_form');
    expect(selectApprovalChannel({ ...input, clientCapabilities: { clientInfo: { name: 'claude-ai' } } })).toBe('central');
  });
});
