// Baseline for the AuthZEN scenario: a decision point that answers the same evaluations from an in-memory table (who
// holds which permission), on plain node:http — the least a PDP can do per request: authenticate the caller (HTTP
// Basic, compared with a SHA-256 of the secret, as Portico stores it), parse the JSON, decide, answer. Started by
// bench/authzen.ts as a process of its own:
//   tsx bench/baselines/authzen-table.ts <port> <client id> <client secret> <subject> <permission…>
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const [portText, clientId, clientSecret, subject, ...permissions] = process.argv.slice(2);
const table = new Map<string, Set<string>>([[subject!, new Set(permissions)]]);
const secretHash = createHash('sha256').update(clientSecret!).digest();

function authenticated(header: string | undefined): boolean {
  const match = /^Basic (.+)$/.exec(header ?? '');
  if (!match) return false;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0 || decodeURIComponent(decoded.slice(0, colon)) !== clientId) return false;
  return timingSafeEqual(createHash('sha256').update(decodeURIComponent(decoded.slice(colon + 1))).digest(), secretHash);
}

type Evaluation = { subject?: { id?: string }; action?: { name?: string }; resource?: unknown };
const decide = (evaluation: Evaluation) => ({ decision: Boolean(evaluation.action?.name && table.get(evaluation.subject?.id ?? '')?.has(evaluation.action.name)) });

createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    if (!authenticated(request.headers.authorization)) {
      response.writeHead(401, { 'WWW-Authenticate': 'Basic' }).end();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Evaluation & { evaluations?: Evaluation[] };
    const answer =
      request.url === '/access/v1/evaluations' && body.evaluations
        ? { evaluations: body.evaluations.map((item) => decide({ subject: item.subject ?? body.subject, action: item.action ?? body.action, resource: item.resource ?? body.resource })) }
        : decide(body);
    response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end(JSON.stringify(answer));
  });
}).listen(Number(portText), '127.0.0.1', () => console.log('baseline AuthZEN table ready'));
