// The browser gets only the namespaces its components read (lib/i18n/catalogs.ts, CLIENT_NAMESPACES; issue 61): every
// `useTranslations` in the code names a literal namespace the list covers, no entry of the list goes unused, and the
// provider's catalog holds exactly those namespaces, in each language.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLIENT_NAMESPACES, clientMessages, messagesFor, supportedLocales } from '@/lib/i18n/catalogs';

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const full = path.join(folder, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(full);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Each `useTranslations(…)` call of the code: its file and what it was given. */
function translationCalls(): { file: string; argument: string }[] {
  const calls: { file: string; argument: string }[] = [];
  for (const file of ['app', 'lib', 'app-kit'].flatMap((folder) => sourceFiles(path.join(process.cwd(), folder)))) {
    for (const match of readFileSync(file, 'utf8').matchAll(/\buseTranslations\(([^)]*)\)/g)) calls.push({ file: path.relative(process.cwd(), file), argument: match[1]!.trim() });
  }
  return calls;
}

const covers = (entry: string, namespace: string) => namespace === entry || namespace.startsWith(`${entry}.`);

describe('the catalog the browser gets', () => {
  const calls = translationCalls();

  it('covers every namespace a client component reads, each named by a literal', () => {
    expect(calls.length).toBeGreaterThan(20);
    for (const call of calls) {
      const literal = /^'([A-Za-z.]+)'$/.exec(call.argument)?.[1];
      expect(literal, `${call.file}: useTranslations(${call.argument}) must name its namespace literally`).toBeDefined();
      expect(CLIENT_NAMESPACES.some((entry) => covers(entry, literal!)), `${call.file} reads "${literal}", missing from CLIENT_NAMESPACES`).toBe(true);
    }
  });

  it('lists nothing no component reads, and no entry inside another', () => {
    const read = calls.map((call) => /^'([A-Za-z.]+)'$/.exec(call.argument)?.[1] ?? '');
    for (const entry of CLIENT_NAMESPACES) {
      expect(read.some((namespace) => covers(entry, namespace)), `${entry} is read by no client component`).toBe(true);
      expect(CLIENT_NAMESPACES.filter((other) => other !== entry && covers(other, entry)), `${entry} is inside another entry`).toEqual([]);
    }
  });

  it('holds exactly those namespaces, as the catalogs have them, in every language', () => {
    for (const locale of supportedLocales()) {
      const picked = clientMessages(locale) as Record<string, unknown>;
      const catalog = messagesFor(locale) as unknown as Record<string, unknown>;
      const at = (tree: Record<string, unknown>, namespace: string) => namespace.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], tree);
      for (const namespace of CLIENT_NAMESPACES) {
        expect(at(picked, namespace), `${locale}: ${namespace}`).toEqual(at(catalog, namespace));
        expect(at(picked, namespace), `${locale}: ${namespace}`).toBeDefined();
      }
      // What only the server reads stays there (the refusals, the mails, the pages' own words).
      expect(picked.refusals).toBeUndefined();
      expect(picked.mail).toBeUndefined();
      expect(JSON.stringify(picked).length).toBeLessThan(JSON.stringify(catalog).length / 4);
    }
  });
});
