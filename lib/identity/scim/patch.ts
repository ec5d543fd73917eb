// SCIM PATCH (RFC 7644 §3.5.2): a PatchOp body's operations checked, and the attributes each one targets.
import { scimRefusal } from '../refusal-codes';
import { attributePath, type AttributePath, type ResourceSchema } from './attributes';
import { isObject } from './resources';

const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * The attributes one PATCH operation targets (RFC 7644 §3.5.2): its path, or without one each attribute of its value
 * (Okta's `{"op": "replace", "value": {"active": false}}`; Entra ID may spell a key as a path, `name.givenName`).
 * Attributes of an extension Portico does not know are left out here.
 */
export function operationTargets(operation: PatchOperation, resource: ResourceSchema): { target: AttributePath & { attribute: string }; value: unknown; path: string }[] {
  const targets: { target: AttributePath & { attribute: string }; value: unknown; path: string }[] = [];
  const add = (path: string, value: unknown, wrapped = false) => {
    const target = attributePath(path, resource, 'invalidPath');
    if (!target) return;
    if (target.attribute !== undefined) targets.push({ target: { ...target, attribute: target.attribute }, value, path });
    else if (target.schema !== resource.core) return; // a whole extension: nothing of it is kept
    else if (operation.op === 'remove') throw scimRefusal(400, `${path.slice(0, 100)}: remove names an attribute, not the whole ${resource.name}.`, 'invalidPath');
    else if (!isObject(value)) throw scimRefusal(400, `${path.slice(0, 100)}: the value is an object of the ${resource.name}'s attributes.`, 'invalidValue');
    // Once, as in resourceBody: the core schema nested in itself is refused, never followed down the stack.
    else if (wrapped) throw scimRefusal(400, `${resource.core} cannot wrap itself.`, 'invalidPath');
    else for (const [key, inner] of Object.entries(value)) add(key, inner, true);
  };
  if (operation.path !== undefined) add(operation.path, operation.value);
  else if (!isObject(operation.value)) throw scimRefusal(400, 'Without a path, value is an object of the attributes to change (RFC 7644 §3.5.2.1).', 'invalidValue');
  else for (const [key, value] of Object.entries(operation.value)) add(key, value);
  return targets;
}

/** `id` is read-only (RFC 7643 §3.1): the same id again changes nothing; another, or none, is a mutability error. */
export function refuseIdChange(operation: PatchOperation, value: unknown, id: string): void {
  if (operation.op === 'remove' || typeof value !== 'string' || value.toLowerCase() !== id.toLowerCase()) {
    throw scimRefusal(400, 'id is read-only: it cannot be changed or removed (RFC 7643 §3.1).', 'mutability');
  }
}

interface PatchOperation {
  op: 'add' | 'replace' | 'remove';
  path?: string;
  value?: unknown;
}

/** A PatchOp body (RFC 7644 §3.5.2), its operations checked; `op` is case-insensitive (directories send "Replace"). */
export function patchOperations(body: Record<string, unknown>): PatchOperation[] {
  if (!Array.isArray(body.schemas) || !body.schemas.includes(PATCH_SCHEMA)) throw scimRefusal(400, `A PATCH body is a ${PATCH_SCHEMA}.`, 'invalidSyntax');
  const operations = body.Operations;
  if (!Array.isArray(operations) || operations.length === 0 || operations.length > 1000) throw scimRefusal(400, 'Operations must be a non-empty array.', 'invalidSyntax');
  return operations.map((operation: { op?: unknown; path?: unknown; value?: unknown }) => {
    const op = typeof operation?.op === 'string' ? operation.op.toLowerCase() : '';
    if (op !== 'add' && op !== 'replace' && op !== 'remove') throw scimRefusal(400, 'op must be add, replace or remove.', 'invalidSyntax');
    if (operation.path !== undefined && (typeof operation.path !== 'string' || operation.path.length > 300)) throw scimRefusal(400, 'path must be a string.', 'invalidPath');
    if (op === 'remove' && operation.path === undefined) throw scimRefusal(400, 'A remove operation needs a path (RFC 7644 §3.5.2.2).', 'noTarget');
    return { op, path: operation.path as string | undefined, value: operation.value };
  });
}
