// Audit actions and webhook event types have names a person reads, in every language (issue 56, item 8): every
// action the code records is in lib/audit/actions.ts, and the catalogs name each one and each webhook type.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS, auditActionName, auditActorTypeName, auditFamilyName, auditSubjectTypeName, webhookEventName } from '@/lib/audit/actions';
import { messagesFor, supportedLocales } from '@/lib/i18n/catalogs';
import { WEBHOOK_EVENT_TYPES } from '@/lib/webhooks/events';
import type { ToolOutcome } from '@/app-kit/tools';
import { auditActorType } from '@/lib/db/schema/audit';

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const full = path.join(folder, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(full);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

/**
 * Every audit action written in the code: `action: 'x.y'`, each quoted branch of `action: a ? 'x.y' : 'x.z'`, and
 * `action = 'x.y'` (a variable passed on as `{ action }`).
 */
function recordedActions(): Set<string> {
  const found = new Set<string>();
  for (const file of ['lib', 'app', 'scripts', 'app-kit'].flatMap((folder) => sourceFiles(path.join(process.cwd(), folder)))) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const written = /\baction(?:: | = )([^,};]+)/.exec(line)?.[1];
      if (!written || !/^['(a-zA-Z]/.test(written)) continue;
      for (const literal of written.matchAll(/'([a-z_]+\.[a-z_]+)'/g)) found.add(literal[1]!);
    }
  }
  // The gated tools' events (lib/mcp/audit.ts): `mcp.tool_${outcome}`; the gateway's (lib/gateway/resource.ts): `gateway.tool_${outcome}`.
  const outcomes: Record<ToolOutcome, true> = { challenge_issued: true, succeeded: true, failed: true };
  for (const outcome of Object.keys(outcomes)) found.add(`mcp.tool_${outcome}`).add(`gateway.tool_${outcome}`);
  return found;
}

/** Every subject type written in the code (`subject: { type: 'team', … }`). */
function subjectTypes(): Set<string> {
  const found = new Set<string>();
  for (const file of ['lib', 'app', 'scripts'].flatMap((folder) => sourceFiles(path.join(process.cwd(), folder)))) {
    for (const match of readFileSync(file, 'utf8').matchAll(/subject: \{ type: '([a-z_]+)'/g)) found.add(match[1]!);
  }
  return found;
}

describe('the names of audit actions and webhook events', () => {
  const recorded = recordedActions();
  const subjects = subjectTypes();

  it('lists every audit action the code records, and none it does not', () => {
    // The scan finds the code's actions (a sanity floor, so that a broken scan cannot pass by finding nothing).
    expect(recorded.size).toBeGreaterThan(100);
    expect([...recorded].filter((action) => !(AUDIT_ACTIONS as readonly string[]).includes(action)).sort()).toEqual([]);
    expect(AUDIT_ACTIONS.filter((action) => !recorded.has(action))).toEqual([]);
  });

  for (const locale of supportedLocales()) {
    it(`names each of them in ${locale}, and each family and webhook type`, () => {
      expect(AUDIT_ACTIONS.filter((action) => !auditActionName(locale, action))).toEqual([]);
      expect([...new Set(AUDIT_ACTIONS.map((action) => action.split('.')[0]!))].filter((family) => !auditFamilyName(locale, family))).toEqual([]);
      expect(WEBHOOK_EVENT_TYPES.filter((type) => !webhookEventName(locale, type))).toEqual([]);
      // A code the catalogs do not name has no name (an app's own webhook type), and nothing odd is looked up.
      expect(auditActionName(locale, 'app.no_such_action')).toBeUndefined();
      expect(webhookEventName(locale, 'app.deploy_finished')).toBeUndefined();
      expect(auditActionName(locale, 'constructor')).toBeUndefined();
      // Who acted and what an event is about, as words (the audit event's page): each actor type of the schema, and
      // each subject type the code writes; one the catalogs lack shows as its code.
      expect(subjects.size).toBeGreaterThan(15);
      const named = messagesFor(locale).events;
      expect([...subjects].filter((type) => !(type in named.subjectTypes))).toEqual([]);
      expect(auditActorType.enumValues.filter((type) => !(type in named.actorTypes))).toEqual([]);
      expect(auditSubjectTypeName(locale, 'something_new')).toBe('something_new');
    });
  }

  it('reads as words in Portuguese, not as the English name', () => {
    expect(auditActionName('pt-BR', 'app.created')).toBe('App criado');
    expect(auditActionName('en', 'app.created')).toBe('App created');
    expect(webhookEventName('pt-BR', 'member.invitation_sent')).toBe('Convite enviado');
    expect(auditSubjectTypeName('pt-BR', 'team')).toBe('equipe');
    expect(auditActorTypeName('pt-BR', 'system')).toBe('o próprio Portico');
  });
});
