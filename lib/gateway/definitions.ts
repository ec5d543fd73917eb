// A tool's definition as the gateway pins it: what an upstream said the tool is (name, title, description, input and
// output schema, annotations), in RFC 8785 form, and its SHA-256. An approval is of one digest: a definition that
// changes upstream (a tool that now says it does something else, "tool poisoning") is a new digest, and the tool is
// withheld from agents until an admin approves it again, seeing what changed.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { RiskLevel } from '../../app-kit/risk';
import { storableJson } from '../util/storable-text';

export interface ToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** MCP tool names (2025-11-25 §Tools: 1-128 of letters, digits, `_ - .`); anything else is not offered. */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** What of a definition is kept: its known fields only (an upstream's `_meta`, `icons` and the rest are not pinned nor shown). */
export function definitionOf(tool: unknown): ToolDefinition | undefined {
  if (typeof tool !== 'object' || tool === null) return undefined;
  const candidate = tool as Record<string, unknown>;
  if (typeof candidate.name !== 'string' || !TOOL_NAME.test(candidate.name)) return undefined;
  const object = (value: unknown) => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined);
  const inputSchema = object(candidate.inputSchema);
  if (!inputSchema || inputSchema.type !== 'object') return undefined;
  // Stored as PostgreSQL can (no NUL, no lone surrogate: lib/util/storable-text.ts), and digested as stored.
  return storableJson({
    name: candidate.name,
    ...(typeof candidate.title === 'string' ? { title: candidate.title } : {}),
    ...(typeof candidate.description === 'string' ? { description: candidate.description } : {}),
    inputSchema,
    ...(object(candidate.outputSchema) ? { outputSchema: object(candidate.outputSchema) } : {}),
    ...(object(candidate.annotations) ? { annotations: object(candidate.annotations) } : {}),
  });
}

/** SHA-256 of the definition in RFC 8785 (JSON Canonicalization Scheme) form, base64url. */
export function definitionDigest(definition: ToolDefinition): string {
  return createHash('sha256').update(canonicalize(definition) ?? '').digest('base64url');
}

/**
 * The level Portico proposes from the upstream's annotations (hints, which a server may get wrong: the admin
 * decides). Read-only → safe; destructive → approval_required; anything else → caution, audited.
 */
export function proposedLevelOf(definition: ToolDefinition): RiskLevel {
  const hints = definition.annotations ?? {};
  if (hints.readOnlyHint === true) return 'safe';
  if (hints.destructiveHint === true) return 'approval_required';
  return 'caution';
}

export type DefinitionField = 'title' | 'description' | 'inputSchema' | 'outputSchema' | 'annotations';

/** What changed between an approved definition and the one offered now: each changed field, before and after (as JSON text). */
export function definitionChanges(before: ToolDefinition | null, after: ToolDefinition): { field: DefinitionField; before: string; after: string }[] {
  const fields: DefinitionField[] = ['title', 'description', 'inputSchema', 'outputSchema', 'annotations'];
  const shown = (value: unknown) => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return fields
    .filter((field) => (canonicalize(before?.[field] ?? null) ?? '') !== (canonicalize(after[field] ?? null) ?? ''))
    .map((field) => ({ field, before: shown(before?.[field]), after: shown(after[field]) }));
}
