// Ids from URLs, forms and tokens reach SQL only when they are well-formed UUIDs: PostgreSQL would otherwise
// reject the query (a 500), and a loose pattern such as 36 dashes is not an id.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
