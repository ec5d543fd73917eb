// The end-of-run report both test runners print (test/support/vitest-report.ts, e2e/support/playwright-report.ts):
// the ten slowest files and tests, so that the next cut of the suite's time starts from where the time goes, and
// every test that passed only on a retry, by name (flaky is failing: nothing is retried silently).
export interface TimedEntry {
  name: string;
  milliseconds: number;
}

export interface RunReport {
  runner: string;
  files: TimedEntry[];
  tests: TimedEntry[];
  /** Tests that needed more than one attempt, passed or not. */
  retried: string[];
  /** Where the runner runs lanes side by side (Playwright's workers): each lane's wall time, first start to last end. */
  lanes?: TimedEntry[];
}

const seconds = (milliseconds: number) => `${(milliseconds / 1000).toFixed(1).padStart(7)} s`;

function slowest(title: string, entries: TimedEntry[], count = 10): string[] {
  const top = [...entries].sort((a, b) => b.milliseconds - a.milliseconds).slice(0, count);
  return [`${title}:`, ...top.map((entry) => `${seconds(entry.milliseconds)}  ${entry.name}`)];
}

export function formatRunReport(report: RunReport): string {
  const total = report.files.reduce((sum, file) => sum + file.milliseconds, 0);
  const lines = [
    '',
    `── ${report.runner}: ${report.files.length} files, ${report.tests.length} tests, ${(total / 1000).toFixed(0)} s of test time ──`,
    ...slowest(`The ten slowest ${report.runner} files`, report.files),
    ...slowest(`The ten slowest ${report.runner} tests`, report.tests),
    ...(report.lanes ? [`Each ${report.runner} lane's wall time:`, ...report.lanes.map((lane) => `${seconds(lane.milliseconds)}  ${lane.name}`)] : []),
  ];
  lines.push(
    report.retried.length === 0
      ? `No ${report.runner} test needed a retry.`
      : `${report.runner} tests that needed a retry (flaky is failing; fix them):\n${report.retried.map((name) => `  ${name}`).join('\n')}`,
  );
  return `${lines.join('\n')}\n`;
}
