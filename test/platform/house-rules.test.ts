// The rules of the house's layout (docs/architecture.md, "The layers"), read from the source itself, so that a change
// that breaks one fails here rather than in a reviewer's eye: no two files of lib/ import each other round a circle
// (but the schema's tables, whose foreign keys name each other), nothing in lib/ imports a page or route of app/,
// the outbox is woken in one place, and every delivery enters it through its one enqueue; a refusal is one family,
// told apart only by the doors' answers.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

function sourceFiles(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder)).flatMap((name) => {
    const relative = path.join(folder, name);
    if (statSync(path.join(ROOT, relative)).isDirectory()) return sourceFiles(relative);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [relative] : [];
  });
}

/** The repository file an import names (relative or `@/`), or undefined for a package. */
function resolved(from: string, specifier: string): string | undefined {
  const base = specifier.startsWith('@/') ? specifier.slice(2) : specifier.startsWith('.') ? path.join(path.dirname(from), specifier) : undefined;
  if (base === undefined) return undefined;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')]) {
    try {
      if (statSync(path.join(ROOT, candidate)).isFile()) return path.normalize(candidate);
    } catch {
      // not this one
    }
  }
  return path.normalize(base);
}

function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(SPECIFIER)].map((match) => resolved(file, match[1]!)).filter((target): target is string => target !== undefined);
}

/** Files that import each other round a circle (Tarjan's strongly connected components of more than one file). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('the house rules', () => {
  const lib = sourceFiles('lib');
  const graph = new Map(lib.map((file) => [file, importsOf(file).filter((target) => target.startsWith(`lib${path.sep}`))]));

  it('has no circle of imports in lib/ but the schema tables’ foreign keys', () => {
    const schema = `lib${path.sep}db${path.sep}schema${path.sep}`;
    expect(circles(graph).filter((circle) => !circle.every((file) => file.startsWith(schema)))).toEqual([]);
  });

  it('has no file of lib/ import app/', () => {
    expect(lib.flatMap((file) => importsOf(file).filter((target) => target.startsWith(`app${path.sep}`)).map((target) => `${file} -> ${target}`))).toEqual([]);
  });

  const everything = ['lib', 'app', 'app-kit'].flatMap(sourceFiles).concat(['server.ts']);
  const filesSaying = (pattern: RegExp) => everything.filter((file) => pattern.test(readFileSync(path.join(ROOT, file), 'utf8')));

  it('wakes the outbox in one place: the after-commit hook wired at boot', () => {
    expect(filesSaying(/outbox\.kick\(/)).toEqual([path.join('lib', 'boot.ts')]);
  });

  it('queues every delivery through the outbox’s one enqueue', () => {
    expect(filesSaying(/insert\(outboundDeliveries\)/)).toEqual([path.join('lib', 'deliveries', 'outbox.ts')]);
  });

  // app-kit is the kit published apps build on: its errors are its own API, and it imports nothing of lib/.
  it('has one refusal family, told apart only in each door’s answer', () => {
    const portico = (files: string[]) => files.filter((file) => !file.startsWith(`app-kit${path.sep}`));
    expect(portico(filesSaying(/class \w*Refusal\b/))).toEqual([path.join('lib', 'refusals', 'refusal.ts')]);
    const answers = [
      'app/account/_lib/refusal-words.ts', // account pages
      'app/api/v1/_lib/rest.ts', // REST
      'app/console/_lib/action.ts', // console forms
      'lib/authzen/routes.ts', // the AuthZEN decision point and its access requests
      'lib/cli/index.ts', // the CLI
      'lib/http/errors.ts', // OAuth-shaped endpoints (the central, passkey options)
      'lib/identity/scim/http.ts', // SCIM
      'lib/mcp/context.ts', // MCP tools
      'lib/refusals/refusal.ts', // refusalOf, for a rule that goes on after another's refusal
    ].map((file) => path.join(...file.split('/')));
    expect(portico(filesSaying(/instanceof \w*Refusal\b/)).sort()).toEqual(answers.sort());
  });
});
