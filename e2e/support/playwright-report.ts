// A Playwright reporter beside the list reporter: the slowest spec files and tests, each lane's wall time (a worker
// slot, with the shared server it uses: playwright.config.ts), and any test that needed a retry
// (test/support/slowest.ts). A file's time is the sum of its tests' attempts (hooks included).
import path from 'node:path';
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { formatRunReport, type TimedEntry } from '../../test/support/slowest';

export default class SlowestReporter implements Reporter {
  private readonly fileTimes = new Map<string, number>();
  private readonly tests = new Map<TestCase, TimedEntry>();
  private readonly retried = new Set<TestCase>();
  private readonly lanes = new Map<number, { first: number; last: number; projects: Set<string> }>();

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
    // A test that never ran (skipped before a worker took it) belongs to no lane.
    if (result.parallelIndex < 0) return;
    const started = result.startTime.getTime();
    const lane = this.lanes.get(result.parallelIndex) ?? { first: started, last: started, projects: new Set<string>() };
    lane.first = Math.min(lane.first, started);
    lane.last = Math.max(lane.last, started + result.duration);
    lane.projects.add(test.parent.project()?.name ?? '?');
    this.lanes.set(result.parallelIndex, lane);
  }

  onEnd(_result: FullResult): void {
    const files = [...this.fileTimes].map(([name, milliseconds]) => ({ name, milliseconds }));
    const retried = [...this.retried].map((test) => `${this.tests.get(test)!.name} (${test.outcome()})`);
    const lanes = [...this.lanes]
      .sort(([a], [b]) => a - b)
      .map(([index, lane]) => ({ name: `lane ${index} (${[...lane.projects].sort().join(', ')})`, milliseconds: lane.last - lane.first }));
    process.stdout.write(formatRunReport({ runner: 'Playwright', files, tests: [...this.tests.values()], retried, lanes }));
  }
}
