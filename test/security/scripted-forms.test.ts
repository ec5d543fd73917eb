// Every form the page's script submits follows app/_lib/scripted-form.ts: it posts if anything submits it natively,
// and its component waits for the script before its buttons work. The browser test (e2e/security-headers.spec.ts,
// scripts off) proves the two rules on real pages; this finds a form that does not follow them.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../app');

function componentFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return componentFiles(full);
    return entry.name.endsWith('.tsx') ? [full] : [];
  });
}

/** Each `<form …>` opening tag of a file (its attributes, up to the first `>` that closes the tag at depth 0). */
function formTags(source: string): string[] {
  const tags: string[] = [];
  for (let start = source.indexOf('<form'); start >= 0; start = source.indexOf('<form', start + 1)) {
    if (!/[\s>]/.test(source[start + 5] ?? '')) continue;
    let depth = 0;
    let end = start;
    for (; end < source.length; end += 1) {
      const character = source[end];
      if (character === '{') depth += 1;
      else if (character === '}') depth -= 1;
      else if (character === '>' && depth === 0 && source[end - 1] !== '=') break;
    }
    tags.push(source.slice(start, end + 1));
  }
  return tags;
}

describe('forms submitted by the page’s script', () => {
  const scripted = componentFiles(root).flatMap((file) => {
    const source = readFileSync(file, 'utf8');
    return formTags(source)
      .filter((tag) => /\bonSubmit=/.test(tag))
      .map((tag) => ({ file: path.relative(root, file), tag, source }));
  });

  it('are found (the search itself works)', () => {
    expect(scripted.map((form) => form.file)).toEqual(expect.arrayContaining(['console/_components/action-form.tsx', 'account/_components/card-form.tsx']));
  });

  it('post, and wait for the script before their buttons work', () => {
    const offenders = scripted.filter((form) => !form.tag.includes('method={SCRIPTED_FORM_METHOD}') || !form.source.includes('useScriptReady()')).map((form) => form.file);
    expect(offenders).toEqual([]);
  });
});
