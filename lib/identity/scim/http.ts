// The SCIM 2.0 HTTP service (RFC 7644 §3): one handler for /scim/v2/*, answering in application/scim+json with the
// protocol's own errors (lib/http/errors.ts scimError). Authentication: the organization's bearer token (§2); without
// a valid one, 401 with a Bearer challenge and nothing else.
import type { Database } from '../../db/client';
import { readJsonObject, NO_STORE, scimError } from '../../http/errors';
import { createScimUser, deleteScimUser, getUser, listUsers, patchScimUser, replaceScimUser } from './users';
import { resourceTypes, schemas, serviceProviderConfig } from './discovery';
import { project, projection, SCIM_BODY_LIMIT, type ScimContext } from './resources';
import { createScimGroup, deleteScimGroup, getGroup, listGroups, patchScimGroup, replaceScimGroup } from './groups';
import { organizationOfScimToken } from './tokens';
import { Refusal } from '../../refusals/refusal';
import { scimRefusal, scimTypeOf } from '../refusal-codes';

const SCIM_JSON = { 'Content-Type': 'application/scim+json', ...NO_STORE };

function scimJson(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...SCIM_JSON, ...headers } });
}

export async function handleScimRequest(db: Database, request: Request, input: { issuer: string; path: string[]; ip: string }): Promise<Response> {
  const base = `${input.issuer}/scim/v2`;
  const orgId = await organizationOfScimToken(db, request.headers.get('authorization'));
  if (!orgId) return scimError(401, 'A valid SCIM bearer token is required (Settings → Identity → SCIM provisioning).', undefined, { 'WWW-Authenticate': 'Bearer realm="scim"' });
  const ctx: ScimContext = { db, orgId, base, ip: input.ip };
  const [resource, id, ...rest] = input.path;
  const method = request.method.toUpperCase();
  const params = new URL(request.url).searchParams;
  try {
    if (rest.length > 0) throw scimRefusal(404, 'No such endpoint.');
    // attributes / excludedAttributes (RFC 7644 §3.9) shape every User and Group a response holds, whatever the method.
    const view = resource === 'Users' || resource === 'Groups' ? projection(params) : {};
    const shown = <T extends Record<string, unknown>>(found: T) => project(found, view);
    const shownList = <T extends { Resources: Record<string, unknown>[] }>(list: T) => ({ ...list, Resources: list.Resources.map(shown) });
    if (resource === 'ServiceProviderConfig' && !id && method === 'GET') return scimJson(serviceProviderConfig(base));
    if (resource === 'ResourceTypes' && method === 'GET') return id ? scimJson(single(resourceTypes(base).Resources, id)) : scimJson(resourceTypes(base));
    if (resource === 'Schemas' && method === 'GET') return id ? scimJson(single(schemas(base).Resources, id)) : scimJson(schemas(base));
    if (resource === 'Users') {
      if (!id && method === 'GET') return scimJson(shownList(await listUsers(ctx, params)));
      if (!id && method === 'POST') return created(await createScimUser(ctx, await body(request)), shown);
      if (id && method === 'GET') return scimJson(shown(await getUser(ctx, id)));
      if (id && method === 'PUT') return scimJson(shown(await replaceScimUser(ctx, id, await body(request))));
      if (id && method === 'PATCH') return scimJson(shown(await patchScimUser(ctx, id, await body(request))));
      if (id && method === 'DELETE') return (await deleteScimUser(ctx, id), new Response(null, { status: 204, headers: NO_STORE }));
    }
    if (resource === 'Groups') {
      if (!id && method === 'GET') return scimJson(shownList(await listGroups(ctx, params, view)));
      if (!id && method === 'POST') return created(await createScimGroup(ctx, await body(request)), shown);
      if (id && method === 'GET') return scimJson(shown(await getGroup(ctx, id, view)));
      if (id && method === 'PUT') return scimJson(shown(await replaceScimGroup(ctx, id, await body(request))));
      if (id && method === 'PATCH') return scimJson(shown(await patchScimGroup(ctx, id, await body(request))));
      if (id && method === 'DELETE') return (await deleteScimGroup(ctx, id), new Response(null, { status: 204, headers: NO_STORE }));
    }
    if (resource === 'Bulk' || resource === 'Me' || resource === '.search') throw scimRefusal(501, `${resource} is not supported (see ServiceProviderConfig).`);
    throw scimRefusal(404, 'No such endpoint.');
  } catch (error) {
    return scimAnswer(error);
  }
}

/** The SCIM door's one answer to a refusal (RFC 7644 §3.12): its status, its scimType where its code is one, its words. Anything else is thrown on. */
function scimAnswer(error: unknown): Response {
  if (!(error instanceof Refusal)) throw error;
  return scimError(error.status, error.message, scimTypeOf(error));
}

function single(resources: unknown[], id: string) {
  const found = (resources as { id: string }[]).find((resource) => resource.id === id);
  if (!found) throw scimRefusal(404, `No ${id.slice(0, 100)}.`);
  return found;
}

function created<T extends { meta: { location: string } }>(resource: T, shown: (resource: T) => unknown): Response {
  return scimJson(shown(resource), 201, { Location: resource.meta.location });
}

/** A JSON object body (application/scim+json or application/json), capped; anything else is invalidSyntax. */
async function body(request: Request): Promise<Record<string, unknown>> {
  const read = await readJsonObject(request, SCIM_BODY_LIMIT);
  if (!read.ok) throw scimRefusal(read.status === 413 ? 413 : 400, `The request body ${read.description.replace(/^the body /, '')}.`, 'invalidSyntax');
  return read.value;
}
