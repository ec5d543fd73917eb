// SCIM discovery (RFC 7644 §4): the service provider's configuration, its resource types and its schemas.
import { GROUP_SCHEMA, SCIM_MAX_RESULTS, USER_SCHEMA, listResponse } from './resources';

export function serviceProviderConfig(base: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    documentationUri: `${base.replace(/\/scim\/v2$/, '')}/docs/accounts#scim`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: SCIM_MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [{ type: 'oauthbearertoken', name: 'Bearer token', description: 'The organization’s SCIM token, made in Settings → Identity (shown once).', primary: true }],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

export function resourceTypes(base: string) {
  const types = [
    { id: 'User', name: 'User', endpoint: '/Users', schema: USER_SCHEMA, description: 'A person of the organization' },
    { id: 'Group', name: 'Group', endpoint: '/Groups', schema: GROUP_SCHEMA, description: 'A team of the organization' },
  ].map((type) => ({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'], ...type, meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/${type.id}` } }));
  return listResponse(types, types.length, 1);
}

const attribute = (name: string, type: string, extra: Record<string, unknown> = {}) => ({ name, type, multiValued: false, required: false, caseExact: false, mutability: 'readWrite', returned: 'default', uniqueness: 'none', ...extra });

export function schemas(base: string) {
  const list = [
    {
      id: USER_SCHEMA,
      name: 'User',
      description: 'User Account',
      attributes: [
        attribute('userName', 'string', { required: true, uniqueness: 'server' }),
        attribute('name', 'complex', { subAttributes: [attribute('formatted', 'string'), attribute('givenName', 'string'), attribute('familyName', 'string')] }),
        attribute('displayName', 'string'),
        attribute('emails', 'complex', { multiValued: true, subAttributes: [attribute('value', 'string'), attribute('type', 'string'), attribute('primary', 'boolean')] }),
        attribute('active', 'boolean'),
        attribute('externalId', 'string', { caseExact: true }),
      ],
    },
    {
      id: GROUP_SCHEMA,
      name: 'Group',
      description: 'Group',
      attributes: [
        attribute('displayName', 'string', { required: true, uniqueness: 'server' }),
        attribute('members', 'complex', { multiValued: true, subAttributes: [attribute('value', 'string', { mutability: 'immutable' }), attribute('display', 'string', { mutability: 'readOnly' })] }),
        attribute('externalId', 'string', { caseExact: true }),
      ],
    },
  ].map((schema) => ({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'], ...schema, meta: { resourceType: 'Schema', location: `${base}/Schemas/${schema.id}` } }));
  return listResponse(list, list.length, 1);
}
