// A tool's call schema is built once per process (app-kit/tools.ts, callSchemaOf), and so is its JSON Schema: the
// MCP SDK converts the called tool's input schema once per server, and Portico makes a server per request.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callSchemaOf, callShapeOf, defineTool, type AnyKitTool } from '../../app-kit/tools';

const tool = defineTool({
  name: 'notes.find',
  description: 'Finds notes.',
  riskLevel: 'approval_required',
  inputSchema: { text: z.string().max(200), limit: z.number().int().min(1).max(50).optional() },
  run: async () => ({ content: [] }),
}) as unknown as AnyKitTool<never>; // as the registry holds its tools (registerKitTools)

describe('a tool’s call schema', () => {
  it('is converted to JSON Schema once for the process, exactly as zod converts it', () => {
    const target = { target: 'draft-2020-12' } as const;
    const schema = callSchemaOf(tool, 'approval_required');
    const first = schema['~standard'].jsonSchema.input(target);
    // The same object for every later server: no conversion per call.
    expect(callSchemaOf(tool, 'approval_required')['~standard'].jsonSchema.input(target)).toBe(first);
    expect(first).toEqual(z.toJSONSchema(z.object(callShapeOf(tool, 'approval_required')), { ...target, io: 'input' }));
    expect(first).toMatchObject({ properties: { _confirmation_token: { type: 'string' } } });
    // Shared by every server, so nobody may change it.
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen((first as { properties: object }).properties)).toBe(true);
    // Another target or direction is its own conversion.
    expect(schema['~standard'].jsonSchema.output(target)).toEqual(z.toJSONSchema(z.object(callShapeOf(tool, 'approval_required')), { ...target, io: 'output' }));
    expect(schema['~standard'].jsonSchema.input({ target: 'draft-07' })).not.toBe(first);
    // Options holding a function are no key: that conversion is made each time, with the function.
    const overridden = schema['~standard'].jsonSchema.input({ ...target, libraryOptions: { override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => void (jsonSchema.description = 'overridden') } });
    expect(overridden).not.toBe(first);
    expect(overridden).toMatchObject({ description: 'overridden' });
  });

  it('still validates through zod', async () => {
    const schema = callSchemaOf(tool, 'safe');
    expect(await schema['~standard'].validate({ text: 'groceries' })).toEqual({ value: { text: 'groceries' } });
    const refused = await schema['~standard'].validate({ text: 7 });
    expect('issues' in refused && refused.issues?.length).toBeGreaterThan(0);
  });
});
