// `npm run bench -- <scenario> --gc-stats`: loaded into Portico and into each baseline (node --import), it counts the
// process's garbage collections by kind (scavenges of the young generation, mark-compacts of the old one) and their
// pause time, and writes them when the process exits, as `gc-<name>-<pid>.json` in the folder its import URL names
// (`?out=…&name=…`): both sides of a ratio read the same way. Plain TypeScript that Node runs itself (type stripping).
import { writeFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';

const parameters = new URL(import.meta.url).searchParams;
const out = parameters.get('out');
const name = parameters.get('name') ?? 'process';
if (out) {
  const kinds: Record<number, string> = {
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental marking',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
  };
  const collections: Record<string, { count: number; pauseMs: number }> = {};
  // Read when a collection is reported, so the heap as collections leave it, not its peak between them.
  let largestHeapAfterCollectionMb = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = kinds[(entry as { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'other';
      const tally = (collections[kind] ??= { count: 0, pauseMs: 0 });
      tally.count += 1;
      tally.pauseMs += entry.duration;
    }
    largestHeapAfterCollectionMb = Math.max(largestHeapAfterCollectionMb, getHeapStatistics().used_heap_size / 1e6);
  }).observe({ entryTypes: ['gc'] });
  process.on('exit', () => {
    const rounded = Object.fromEntries(Object.entries(collections).map(([kind, { count, pauseMs }]) => [kind, { count, pauseMs: Math.round(pauseMs) }]));
    writeFileSync(`${out}/gc-${name}-${process.pid}.json`, `${JSON.stringify({ name, execArgv: process.execArgv.filter((flag) => flag.startsWith('--max')), collections: rounded, largestHeapAfterCollectionMb: Math.round(largestHeapAfterCollectionMb) }, null, 2)}\n`);
  });
}
