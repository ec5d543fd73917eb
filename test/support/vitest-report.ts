// A vitest reporter beside the default one: the slowest files and tests, and any test that needed a retry
// (test/support/slowest.ts).
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { formatRunReport, type TimedEntry } from './slowest';

export default class SlowestReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const files: TimedEntry[] = [];
    const tests: TimedEntry[] = [];
    const retried: string[] = [];
    for (const module of testModules) {
      const file = path.relative(process.cwd(), module.moduleId);
      files.push({ name: file, milliseconds: module.diagnostic().duration });
      for (const test of module.children.allTests()) {
        const diagnostic = test.diagnostic();
        if (!diagnostic) continue;
        tests.push({ name: `${file} › ${test.fullName}`, milliseconds: diagnostic.duration });
        if (diagnostic.retryCount > 0) retried.push(`${file} › ${test.fullName} (${test.result().state} after ${diagnostic.retryCount} retries)`);
      }
    }
    process.stdout.write(formatRunReport({ runner: 'vitest', files, tests, retried }));
  }
}
