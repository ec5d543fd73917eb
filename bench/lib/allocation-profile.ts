// `npm run bench -- <scenario> --alloc-profile`: loaded into each Portico process (node --import, before server.ts),
// it samples every allocation the process makes, including the objects the garbage collector has since freed — the
// ones `--heap-prof` leaves out, and the ones a request's garbage collection time is made of — and writes them when
// the process exits, as `allocations-<pid>.heapprofile` in the folder its import URL names (`?out=`). Chrome
// DevTools' Memory panel opens the file. Plain TypeScript that Node runs itself (type stripping): it loads before tsx.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const out = new URL(import.meta.url).searchParams.get('out');
if (out) {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.enable');
  // One sample per 16 KiB allocated on average (V8's default is 32 KiB): enough for a request's share at thousands a second.
  session.post('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  // An in-process inspector session answers synchronously, so the profile is written before the process ends.
  process.on('exit', () => {
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (!error) writeFileSync(`${out}/allocations-${process.pid}.heapprofile`, JSON.stringify(result.profile));
    });
  });
}
