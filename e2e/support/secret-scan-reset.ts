// Global setup of the embedded smoke run (no shared server, whose start otherwise empties e2e-logs/): this run's
// servers alone are scanned for secrets afterwards (secret-scan.ts).
import { resetServerLogs } from './secret-scan';

export default function resetLogs(): void {
  resetServerLogs();
}
