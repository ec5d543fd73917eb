// Nothing secret in any server's output, over a whole end-to-end run (issue 41): every Portico the run starts writes
// its output to e2e-logs/ (startPortico), and after the last test this teardown reads it all and looks for
//  - every JSON Web Token (access, ID and logout tokens, security events): none may be logged, whoever it is for;
//  - the secrets the run made and knows: the fixtures' passwords and client secrets, every link and code in every
//    mail the run's mailbox received, and the codes and tokens the tests' clients obtained (rememberSecret).
// A hit fails the run and names the kind of secret, the file and the line, never the secret itself. The same read
// fails the run when any server warned at start that it runs on an unsupported Node.js.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { DEMO, E2E_LANES, lanePort, MAILBOX_HTTP_BASE_PORT } from './constants';
import { FLIGHT_DECK, ROCKETS, SIGNAL_DECK } from './fixtures';

export const SERVER_LOGS = path.join(process.cwd(), 'e2e-logs');
const REMEMBERED = path.join(SERVER_LOGS, 'secrets.jsonl');

/** Empties the folder at the start of a run (the shared servers' start, which comes before any test). */
export function resetServerLogs(): void {
  rmSync(SERVER_LOGS, { recursive: true, force: true });
  mkdirSync(SERVER_LOGS, { recursive: true });
}

/** Where one server process of the run writes its output. */
export function serverLogPath(label: string): string {
  mkdirSync(SERVER_LOGS, { recursive: true });
  return path.join(SERVER_LOGS, `${label}-${process.pid}-${Date.now()}.log`);
}

/** A secret a test obtained (a token, a code): the teardown makes sure no server logged it. One line, appended. */
export function rememberSecret(kind: string, value: string | undefined): void {
  if (!value || value.length < 12) return;
  mkdirSync(SERVER_LOGS, { recursive: true });
  appendFileSync(REMEMBERED, `${JSON.stringify({ kind, value })}\n`);
}

export interface KnownSecret {
  kind: string;
  value: string;
}

export interface SecretLeak {
  kind: string;
  file: string;
  line: number;
}

const JWT = /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/;

/** Every known secret and every JWT found in the logs: kind, file and line (1-based). */
export function findSecretsIn(logs: { file: string; text: string }[], secrets: KnownSecret[]): SecretLeak[] {
  // Tokens and codes (URL-safe characters only, thousands of them in a run) are looked up as whole words of a line;
  // anything else (a password with symbols) is searched for in every line.
  const WORD = /[A-Za-z0-9_~-]{12,}/g;
  const words = new Map<string, string>();
  const others: KnownSecret[] = [];
  for (const secret of secrets) {
    if (/^[A-Za-z0-9_~-]{12,}$/.test(secret.value)) words.set(secret.value, secret.kind);
    else if (!others.some((known) => known.value === secret.value)) others.push(secret);
  }
  const leaks: SecretLeak[] = [];
  for (const { file, text } of logs) {
    const lines = text.split('\n');
    lines.forEach((line, index) => {
      if (JWT.test(line)) leaks.push({ kind: 'a JSON Web Token', file, line: index + 1 });
      const kinds = new Set<string>();
      for (const [word] of line.matchAll(WORD)) {
        const kind = words.get(word);
        if (kind) kinds.add(kind);
      }
      for (const secret of others) if (line.includes(secret.value)) kinds.add(secret.kind);
      for (const kind of kinds) leaks.push({ kind, file, line: index + 1 });
    });
  }
  return leaks;
}

/** The fixtures' passwords and client secrets, wherever they sit in the fixture objects. */
export function fixtureSecrets(): KnownSecret[] {
  const found: KnownSecret[] = [];
  const walk = (value: unknown, key: string) => {
    if (typeof value === 'string') {
      if (/password|secret/i.test(key) && value.length >= 8) found.push({ kind: `fixture ${key}`, value });
    } else if (value && typeof value === 'object') {
      for (const [name, inner] of Object.entries(value)) walk(inner, name);
    }
  };
  walk({ DEMO, ROCKETS, FLIGHT_DECK, SIGNAL_DECK }, '');
  return found;
}

/** The links' secret parts in a mail body: query values and path segments that look random (20+ URL-safe characters). */
export function mailSecrets(bodies: string[]): KnownSecret[] {
  const found: KnownSecret[] = [];
  for (const body of bodies) {
    for (const match of body.matchAll(/https?:\/\/[^\s<>"')\]]+/g)) {
      let url: URL;
      try {
        url = new URL(match[0]);
      } catch {
        continue;
      }
      const parts = [...url.searchParams.values(), ...url.pathname.split('/'), url.hash.slice(1)];
      // Identifiers are not secrets: UUIDs, and approval request ids (`apr_…`: the central's pages need a session).
      for (const part of parts) if (/^[A-Za-z0-9_.~-]{20,}$/.test(part) && !/^[0-9a-f-]{36}$/i.test(part) && !/^apr_/.test(part)) found.push({ kind: 'a link from a mail', value: part });
    }
  }
  return found;
}

/** What every lane's mailbox received (this teardown runs in Playwright's main process, lane 0). */
async function mailBodies(): Promise<string[]> {
  const lanes = await Promise.all(
    Array.from({ length: E2E_LANES }, async (_, lane) => {
      try {
        const response = await fetch(`http://127.0.0.1:${lanePort(MAILBOX_HTTP_BASE_PORT, lane)}/messages`);
        if (!response.ok) return [];
        const messages = (await response.json()) as { text?: string; html?: string }[];
        return messages.map((message) => `${message.text ?? ''}\n${message.html ?? ''}`);
      } catch {
        return []; // A lane whose server is gone has no mailbox to read.
      }
    }),
  );
  return lanes.flat();
}

export default async function scanServerLogs(): Promise<void> {
  if (!existsSync(SERVER_LOGS)) throw new Error(`No server output in ${SERVER_LOGS}: the secret scan would prove nothing.`);
  const logs = readdirSync(SERVER_LOGS)
    .filter((name) => name.endsWith('.log'))
    .map((name) => ({ file: name, text: readFileSync(path.join(SERVER_LOGS, name), 'utf8') }));
  // A scan of nothing cannot fail: the servers must have logged their requests (one JSON line each).
  if (!logs.some((log) => log.text.includes('"reqId"'))) throw new Error(`No request was logged in ${SERVER_LOGS}: the secret scan would prove nothing.`);
  const remembered = existsSync(REMEMBERED)
    ? readFileSync(REMEMBERED, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as KnownSecret)
    : [];
  const secrets = [...fixtureSecrets(), ...mailSecrets(await mailBodies()), ...remembered];
  const leaks = findSecretsIn(logs, secrets);
  const summary = `${logs.length} server logs, ${secrets.length} known secrets and every JSON Web Token looked for`;
  if (leaks.length > 0) {
    throw new Error(`Secrets in the servers' output (${summary}):\n${leaks.slice(0, 50).map((leak) => `  ${leak.kind} in e2e-logs/${leak.file}, line ${leak.line}`).join('\n')}`);
  }
  console.log(`Secret scan: none found (${summary}).`);
  // Every server of the run started on a runtime oidc-provider supports (Node.js 24 LTS, docs/deploy.md#runtime):
  // its "Unsupported runtime" warning is the first line a new admin would read.
  const warned = logs.filter((log) => log.text.includes('Unsupported runtime'));
  if (warned.length > 0) throw new Error(`A server of the run started on an unsupported runtime: ${warned.map((log) => `e2e-logs/${log.file}`).join(', ')}`);
}
