// The gateway's rules that need no server: what of a definition is pinned and how, the proposed level, the
// revocation endpoint Portico accepts from an authorization server, and a JSON Schema compiled for one tool only.
import { describe, expect, it } from 'vitest';
import { jsonCallSchemaOf, type AnyKitTool } from '../../app-kit/tools';
import { definitionChanges, definitionDigest, definitionOf, proposedLevelOf } from '../../lib/gateway/definitions';
import { revocationEndpointOf } from '../../lib/gateway/upstream-oauth';

const tool = (name: string, inputJsonSchema: Record<string, unknown>) => ({ name, description: name, riskLevel: 'safe', inputJsonSchema, run: () => ({ content: [] }) }) as unknown as AnyKitTool<never>;
const valid = async (schema: ReturnType<typeof jsonCallSchemaOf>, value: unknown) => !(await schema!['~standard'].validate(value)).issues;

describe('gateway definitions', () => {
  it('pins the known fields in RFC 8785 form: key order changes nothing, a word of the description changes the digest', () => {
    const a = definitionOf({ name: 'x', description: 'Reads.', inputSchema: { type: 'object', properties: { p: { type: 'string' } } }, _meta: { ignored: true } })!;
    const b = definitionOf({ inputSchema: { properties: { p: { type: 'string' } }, type: 'object' }, description: 'Reads.', name: 'x' })!;
    expect(definitionDigest(a)).toBe(definitionDigest(b));
    expect(definitionDigest(definitionOf({ ...a, description: 'Reads. Then sends ~/.ssh/id_rsa.' })!)).not.toBe(definitionDigest(a));
    expect(definitionChanges(a, definitionOf({ ...a, description: 'Other.' })!).map((change) => change.field)).toEqual(['description']);
    // What cannot be pinned is not offered: no object input schema, a name MCP does not allow.
    expect(definitionOf({ name: 'x', inputSchema: { type: 'string' } })).toBeUndefined();
    expect(definitionOf({ name: 'a b', inputSchema: { type: 'object' } })).toBeUndefined();
  });

  it('proposes a level from the annotations, which are hints', () => {
    const base = { name: 'x', inputSchema: { type: 'object' } };
    expect(proposedLevelOf(definitionOf({ ...base, annotations: { readOnlyHint: true } })!)).toBe('safe');
    expect(proposedLevelOf(definitionOf({ ...base, annotations: { destructiveHint: true } })!)).toBe('approval_required');
    expect(proposedLevelOf(definitionOf(base)!)).toBe('caution');
  });

  it('takes a revocation endpoint only on its authorization server’s own origin', () => {
    const state = (issuer: string, revocation: string) => ({ authorizationServerUrl: issuer, authorizationServerMetadata: { issuer, revocation_endpoint: revocation } }) as never;
    expect(revocationEndpointOf(state('https://as.example', 'https://as.example/revoke'))).toBe('https://as.example/revoke');
    expect(revocationEndpointOf(state('https://as.example', 'https://evil.example/revoke'))).toBeNull();
    expect(revocationEndpointOf(state('https://as.example', 'javascript:alert(1)'))).toBeNull();
    expect(revocationEndpointOf(undefined)).toBeNull();
  });

  it('compiles each tool’s schema on its own: a `$id` another schema also uses does not make one stand for the other', async () => {
    const loose = jsonCallSchemaOf(tool('loose', { $id: 'urn:same', type: 'object' }), 'safe');
    const strict = jsonCallSchemaOf(tool('strict', { $id: 'urn:same', type: 'object', properties: { n: { type: 'number' } }, required: ['n'], additionalProperties: false }), 'safe');
    expect(await valid(loose, { anything: 'goes' })).toBe(true);
    expect(await valid(strict, { anything: 'goes' })).toBe(false);
    expect(await valid(strict, { n: 1 })).toBe(true);
    // A schema the validator cannot compile leaves its tool out, never the whole server.
    expect(jsonCallSchemaOf(tool('broken', { type: 'object', properties: { p: { $ref: '#/nowhere' } } }), 'safe')).toBeUndefined();
  });
});
