// The risk model and the confirmation gate the app kit and Portico share: levels only go up, a challenge binds
// the tool, the subject, the acting agent and the RFC 8785 digest of the arguments, and a token works once,
// within 300 seconds.
import { describe, expect, it } from 'vitest';
import { argumentsDigest, createConfirmationGate, memoryConfirmationStore, resolveRiskLevels, RiskConfigurationError, type GatedTool } from '../../app-kit/risk';

const destroy: GatedTool = { name: 'things.destroy', description: 'Destroys a thing.', riskLevel: 'approval_required', warning: 'No undo.' };
const person: { subject: string; actor?: string; clientId: string } = { subject: 'person-1', clientId: 'client-1' };

function gateWithClock() {
  let now = new Date('2026-11-30T12:00:00Z');
  const gate = createConfirmationGate({ store: memoryConfirmationStore(), now: () => now });
  return { gate, advance: (seconds: number) => (now = new Date(now.getTime() + seconds * 1000)) };
}

async function challengeToken(gate: ReturnType<typeof gateWithClock>['gate'], args: Record<string, unknown>, caller = person) {
  const decision = await gate.check(destroy, args, caller);
  if (decision.run || decision.outcome !== 'challenge') throw new Error('expected a challenge');
  return decision.challenge.token;
}

describe('risk levels', () => {
  it('lets an override raise a level and refuses one that lowers it, naming the tool', () => {
    expect(resolveRiskLevels({ a: 'safe', b: 'review' }, { a: 'caution' })).toEqual({ a: 'caution', b: 'review' });
    expect(() => resolveRiskLevels({ a: 'review' }, { a: 'safe' })).toThrow(/lower "a"/);
    expect(() => resolveRiskLevels({ c: 'approval_required' }, { c: 'review' }, ['c'])).toThrow(RiskConfigurationError);
    expect(() => resolveRiskLevels({ c: 'approval_required' }, { c: 'review' }, ['c'])).toThrow(/critical tool "c"/);
    expect(() => resolveRiskLevels({ c: 'review' }, {}, ['c'])).toThrow(/must be declared approval_required/);
    expect(() => resolveRiskLevels({ a: 'safe' }, { a: 'extreme' })).toThrow(/levels are/);
    expect(() => resolveRiskLevels({ a: 'safe' }, { ghost: 'review' })).toThrow(/"ghost"/);
  });
});

describe('the confirmation gate', () => {
  it('lets the lower levels run at once', async () => {
    const { gate } = gateWithClock();
    for (const riskLevel of ['safe', 'caution', 'review'] as const) expect((await gate.check({ ...destroy, riskLevel }, { id: 1 }, person)).run).toBe(true);
  });

  it('binds the arguments by their RFC 8785 form: reordered keys and other number spellings pass, changed values do not', async () => {
    expect(argumentsDigest({ b: 1, a: [1.0, 'x'] })).toBe(argumentsDigest(JSON.parse('{"a":[1e0,"x"],"b":1.00}') as Record<string, unknown>));
    expect(argumentsDigest({ a: 1, _confirmation_token: 'confirm_x' })).toBe(argumentsDigest({ a: 1 }));
    const { gate } = gateWithClock();
    const token = await challengeToken(gate, { id: 7, options: { hard: true, reason: 'old' } });
    expect((await gate.check(destroy, { id: 8, options: { reason: 'old', hard: true }, _confirmation_token: token }, person)).run).toBe(false);
    expect((await gate.check(destroy, { options: { reason: 'old', hard: true }, id: 7, _confirmation_token: token }, person)).run).toBe(true);
  });

  it('binds the subject, the acting agent and the client', async () => {
    const { gate } = gateWithClock();
    const token = await challengeToken(gate, { id: 1 }, { ...person, actor: 'agt_a' });
    expect((await gate.check(destroy, { id: 1, _confirmation_token: token }, { ...person, subject: 'person-2', actor: 'agt_a' })).run).toBe(false);
    expect((await gate.check(destroy, { id: 1, _confirmation_token: token }, person)).run).toBe(false);
    expect((await gate.check(destroy, { id: 1, _confirmation_token: token }, { ...person, actor: 'agt_a', clientId: 'client-2' })).run).toBe(false);
    expect((await gate.check(destroy, { id: 1, _confirmation_token: token }, { ...person, actor: 'agt_a' })).run).toBe(true);
  });

  it('expires a token after 300 seconds; the next call gets a new challenge', async () => {
    const { gate, advance } = gateWithClock();
    const token = await challengeToken(gate, { id: 1 });
    advance(301);
    const late = await gate.check(destroy, { id: 1, _confirmation_token: token }, person);
    expect(late.run).toBe(false);
    if (!late.run && late.outcome === 'challenge') {
      expect(late.reason).toBe('token_not_valid');
      expect(late.challenge.token).not.toBe(token);
      expect((await gate.check(destroy, { id: 1, _confirmation_token: late.challenge.token }, person)).run).toBe(true);
    }
  });

  it('refuses to bind arguments that are not plain JSON (a Set or a Map would canonicalize to {})', async () => {
    const { gate } = gateWithClock();
    await expect(gate.check(destroy, { ids: new Set([1, 2]) }, person)).rejects.toThrow(/not plain JSON/);
    await expect(gate.check(destroy, { when: new Date(NaN) }, person)).rejects.toThrow(/not plain JSON/);
    await expect(gate.check(destroy, { n: Number.NaN }, person)).rejects.toThrow(/finite/);
  });

  it('lets a token run exactly once, also when retries race', async () => {
    const { gate } = gateWithClock();
    const token = await challengeToken(gate, { id: 1 });
    const decisions = await Promise.all(Array.from({ length: 5 }, () => gate.check(destroy, { id: 1, _confirmation_token: token }, person)));
    expect(decisions.filter((decision) => decision.run).length).toBe(1);
  });

  it('refuses human mode over a store nobody can confirm in (one process\'s memory)', () => {
    expect(() => createConfirmationGate({ store: memoryConfirmationStore(), mode: 'human' })).toThrow(RiskConfigurationError);
  });
});
