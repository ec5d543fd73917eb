// The URL paths of the App Router files under app/ (pages, route handlers), found on disk so that tests that must
// cover "every page" or "every POST endpoint" also cover the ones added later. Dynamic segments get sample values.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const SAMPLES: Record<string, string> = { org: 'demo', id: 'apr_aaaaaaaaaaaaaaaaaaaaaaaa' };

function segmentOf(entry: string): string {
  if (entry.startsWith('(')) return ''; // a route group adds no segment
  const catchAll = /^\[\[?\.\.\.(.+?)\]\]?$/.exec(entry);
  if (catchAll) return '/x';
  const dynamic = /^\[(.+)\]$/.exec(entry);
  return `/${dynamic ? (SAMPLES[dynamic[1]!] ?? `x-${dynamic[1]}`) : entry}`;
}

/** Paths of every `fileName` (e.g. page.tsx) below app/ whose source passes `keep`. */
export function appPaths(fileName: string, keep: (source: string) => boolean = () => true, dir = path.join(process.cwd(), 'app'), prefix = ''): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) {
      if (!entry.startsWith('_')) found.push(...appPaths(fileName, keep, full, `${prefix}${segmentOf(entry)}`)); // "_x" folders are private
    } else if (entry === fileName && keep(readFileSync(full, 'utf8'))) {
      found.push(prefix || '/');
    }
  }
  return found;
}
