// A Playwright reporter beside the list reporter: the slowest spec files and tests, and any test that needed a retry
// (test/support/slowest.ts). A file's time is the sum of its tests' attempts (hooks included).
import path from 'node:path';
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { formatRunReport, type TimedEntry } from '../../test/support/slowest';

export default class SlowestReporter implements Reporter {
  private readonly fileTimes = new Map<string, number>();
  private readonly tests = new Map<TestCase, TimedEntry>();
  private readonly retried = new Set<TestCase>();

  printsToStdio(): boolean {
    return true;
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const file = path.relative(process.cwd(), test.location.file);
    this.fileTimes.set(file, (this.fileTimes.get(file) ?? 0) + result.duration);
    const entry = this.tests.get(test) ?? { name: `${file} › ${test.titlePath().slice(3).join(' › ')}`, milliseconds: 0 };
    entry.milliseconds += result.duration;
    this.tests.set(test, entry);
    if (result.retry > 0) this.retried.add(test);
  }

  onEnd(_result: FullResult): void {
    const files = [...this.fileTimes].map(([name, milliseconds]) => ({ name, milliseconds }));
    const retried = [...this.retried].map((test) => `${this.tests.get(test)!.name} (${test.outcome()})`);
    process.stdout.write(formatRunReport({ runner: 'Playwright', files, tests: [...this.tests.values()], retried }));
  }
}
