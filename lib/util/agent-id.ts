// The shape of an agent's id (`agt_` and 16-64 URL-safe characters), as the agents table's CHECK holds it: the one
// test every door applies before an id from outside (a token's `sub`, a client id, a form, a page token) reaches a
// query.
export const AGENT_ID = /^agt_[A-Za-z0-9_-]{16,64}$/;

export function isAgentId(value: unknown): value is string {
  return typeof value === 'string' && AGENT_ID.test(value);
}
