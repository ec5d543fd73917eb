// The catalogs stay complete and honest: every language has exactly English's keys, every message is ICU that
// parses with the same arguments as English, the code uses no key English lacks and English has no key the code
// never uses, and a translation is not English copied over.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';
import { CATALOGS_FOLDER, DEFAULT_LOCALE, messagesFor, supportedLocales } from '@/lib/i18n/catalogs';

type Tree = { [key: string]: string | Tree };

function leaves(tree: Tree, prefix = ''): Map<string, string> {
  const found = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const full = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') found.set(full, value);
    else for (const [k, v] of leaves(value, full)) found.set(k, v);
  }
  return found;
}

/** The argument names of a message and the kind of each (plain, plural, select, date, tag…), nested ones included. */
function argumentsOf(elements: MessageFormatElement[], into = new Set<string>()): Set<string> {
  for (const element of elements) {
    if (element.type === TYPE.literal || element.type === TYPE.pound) continue;
    if (element.type === TYPE.tag) {
      into.add(`<${element.value}>`);
      argumentsOf(element.children, into);
      continue;
    }
    into.add(`${element.value}:${element.type}`);
    if (element.type === TYPE.plural || element.type === TYPE.select) for (const option of Object.values(element.options)) argumentsOf(option.value, into);
  }
  return into;
}

/** The text a message writes itself: its literals, in every branch of its plurals and selects and inside its tags. */
function literalsOf(elements: MessageFormatElement[], into: string[] = []): string[] {
  for (const element of elements) {
    if (element.type === TYPE.literal) into.push(element.value);
    else if (element.type === TYPE.tag) literalsOf(element.children, into);
    else if (element.type === TYPE.plural || element.type === TYPE.select) for (const option of Object.values(element.options)) literalsOf(option.value, into);
  }
  return into;
}

    // Words that are the same in both languages: names, and the loanwords Brazilian Portuguese uses as they are
    // (docs/i18n.md's glossary: webhook, endpoint, token; Standard Webhooks, OpenID Connect and SAML are
    // specifications' names, client ID and secret and the assertion consumer service their terms).
    const sameInBoth = new Set([
      'console.servers.credential.connectedAt',
      'notFound.console',
      'when.utc',
      'console.settings.tabs.webhooks',
      'console.webhooks.pageTitle',
      'console.webhooks.title',
      'console.webhooks.columns.endpoint',
      'console.webhooks.formats.standard',
      'console.identity.connections.kinds.oidc',
      'console.identity.connections.kinds.saml',
      'console.identity.connections.acs',
      'console.identity.connections.fields.clientId',
      'console.identity.connections.fields.clientSecret',
      'console.identity.scim.token',
      'console.agent.keys.clientId',
      'console.agent.federation.columns.audience',
      'console.agent.federation.claims',
      'console.agent.test.claim',
      'mail.signatureAlone',
      'events.auditFamilies.app',
      'events.auditFamilies.webhook',
      'events.subjectTypes.app',
    ]);

const english = leaves(messagesFor(DEFAULT_LOCALE) as unknown as Tree);

describe('the message catalogs', () => {
  it('are the files in messages/, English among them', () => {
    const files = readdirSync(CATALOGS_FOLDER).filter((name) => name.endsWith('.json'));
    expect(supportedLocales()).toEqual(expect.arrayContaining(['en', 'pt-BR']));
    expect(supportedLocales()).toHaveLength(files.length);
    expect(supportedLocales()[0]).toBe('en');
  });

  for (const locale of supportedLocales()) {
    describe(locale, () => {
      const catalog = leaves(JSON.parse(readFileSync(path.join(CATALOGS_FOLDER, `${locale}.json`), 'utf8')) as Tree);

      it('has exactly the keys of English: none missing, none extra', () => {
        expect([...catalog.keys()].filter((key) => !english.has(key))).toEqual([]);
        expect([...english.keys()].filter((key) => !catalog.has(key))).toEqual([]);
      });

      it('is ICU that parses, with the arguments and tags of English', () => {
        for (const [key, message] of catalog) {
          let elements: MessageFormatElement[];
          try {
            elements = parse(message);
          } catch (error) {
            throw new Error(`${locale} ${key}: ${(error as Error).message}`);
          }
          expect([...argumentsOf(elements)].sort(), `${locale} ${key}`).toEqual([...argumentsOf(parse(english.get(key)!))].sort());
        }
      });

      if (locale !== DEFAULT_LOCALE) {
        it('is translated, not English copied over', () => {
          const copied = [...catalog].filter(([key, value]) => value === english.get(key) && !sameInBoth.has(key)).map(([key]) => key);
          expect(copied).toEqual([]);
        });

        it('has no English left inside a translated message, its select and plural branches included', () => {
          // The words that give English away, as whole words in a message's own text (arguments and tags left out):
          // a branch copied from English ("other {the app}") or a half-translated sentence.
          const englishWords = /\b(the|and|with|through|your|you|this|that|is|are|was|of|to|not|needs|nobody|asked)\b/i;
          const leaked = [...catalog]
            .filter(([key]) => !sameInBoth.has(key))
            .flatMap(([key, message]) => literalsOf(parse(message)).filter((text) => englishWords.test(text)).map((text) => `${key}: ${text.trim()}`));
          expect(leaked).toEqual([]);
        });
      }
    });
  }
});

// ---- Keys the code uses ----------------------------------------------------------------------------------------

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const full = path.join(folder, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(full);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

/**
 * Every translator in a file names its namespace where it is made (`getT('signIn')`, `useTranslations('passkey')`,
 * `translator(locale, 'mail.invitation')`); its calls name keys under it: a literal (`t('title')`) or a template
 * whose fixed start is a prefix (`t(\`errors.${code}\`)`: every key under `errors.` counts as used). A file with
 * several translators tries each of its namespaces. A translator is always called `t` (the convention this scan
 * relies on, and the one use-intl's documentation follows).
 */
function translationsIn(source: string) {
  const namespaces = [...source.matchAll(/(?:getT|useTranslations)(?:<[^>]*>)?\(\s*'([\w.]+)'|translator(?:<[^>]*>)?\([^,()]+(?:\([^()]*\))?,\s*'([\w.]+)'/g)].map((match) => match[1] ?? match[2]!);
  const calls = [...source.matchAll(/\bt(?:\.rich|\.markup|\.has)?\(\s*(?:'([\w.:-]+)'|`([\w.:-]*)\$\{)/g)];
  // A translator called where it is made: `(await getT('recovery'))('pageTitle')`, `translator(locale, 'signIn')(…)`.
  const direct = [...source.matchAll(/(?:getT\(\s*'([\w.]+)'\s*\)\)|translator\([^()]*?'([\w.]+)'\s*\))\(\s*(?:'([\w.:-]+)'|`([\w.:-]*)\$\{)/g)];
  const directKey = (match: RegExpMatchArray, part: string) => `${match[1] ?? match[2]}.${part}`;
  // A catalog key carried by a refusal: `localized('refusals.nameTaken', { name })`.
  const carried = [...source.matchAll(/\blocalized\(\s*'([\w.:-]+)'/g)].map((match) => match[1]!);
  // …or a template whose fixed start is a prefix: `localized(\`refusals.gateway.${key}\` as MessageKey)`.
  const carriedTemplates = [...source.matchAll(/\blocalized\(\s*`([\w.:-]*)\$\{/g)].map((match) => match[1]!);
  return {
    // '' too: a translator made without a namespace (a form schema's `(t) => …`) names whole keys.
    namespaces: [...new Set([...namespaces, ''])],
    literals: calls.flatMap((call) => (call[1] !== undefined ? [call[1]] : [])),
    templates: calls.flatMap((call) => (call[2] !== undefined ? [call[2]] : [])),
    directLiterals: direct.flatMap((match) => (match[3] !== undefined ? [directKey(match, match[3])] : [])),
    directTemplates: direct.flatMap((match) => (match[4] !== undefined ? [directKey(match, match[4])] : [])),
    carried,
    carriedTemplates,
  };
}

const under = (namespace: string, key: string) => (namespace ? `${namespace}.${key}` : key);

describe('the keys the code uses', () => {
  const root = process.cwd();
  const files = ['app', 'lib', 'app-kit'].flatMap((folder) => sourceFiles(path.join(root, folder)));
  const uses = files.map((file) => ({ file: path.relative(root, file), ...translationsIn(readFileSync(file, 'utf8')) }));
  // Read from the catalog's structure rather than through a translator: the language's own name.
  const readStructurally = ['language.name'];

  it('finds the translations (the scan itself works)', () => {
    expect(uses.filter((use) => use.literals.length > 0).length).toBeGreaterThan(10);
  });

  it('exist in English, under one of the file’s namespaces', () => {
    const missing = uses.flatMap(({ file, namespaces, literals, directLiterals, carried }) => [
      ...literals.filter((key) => !namespaces.some((namespace) => english.has(under(namespace, key)))).map((key) => `${file}: ${key}`),
      ...[...directLiterals, ...carried].filter((key) => !english.has(key)).map((key) => `${file}: ${key}`),
    ]);
    expect(missing).toEqual([]);
  });

  it('cover every English key (none unused)', () => {
    const exact = new Set(uses.flatMap(({ namespaces, literals, directLiterals, carried }) => [...namespaces.flatMap((namespace) => literals.map((key) => under(namespace, key))), ...directLiterals, ...carried]));
    const prefixes = uses.flatMap(({ namespaces, templates, directTemplates, carriedTemplates }) => [...namespaces.flatMap((namespace) => templates.map((key) => under(namespace, key))), ...directTemplates, ...carriedTemplates]);
    const unused = [...english.keys()].filter((key) => !exact.has(key) && !prefixes.some((prefix) => key.startsWith(prefix)) && !readStructurally.includes(key));
    expect(unused).toEqual([]);
  });
});
