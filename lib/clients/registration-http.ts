// POST /oauth/register as a web-standard handler: the abuse limits counted before the body is read, the body read
// with a size cap, every error RFC 7591 JSON. The route (app/oauth/register) and the test harness both serve it.
import type { Database } from '../db/client';
import { readCappedText } from '../http/body';
import { clientIpFromHeaders } from '../http/client-ip';
import { checkRegistrationLimits, MAX_REGISTRATION_BODY_BYTES, registerClient, validateRegistration, type RegistrationError, type RegistrationLimits } from './registration';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers: { ...NO_STORE, ...headers } });
}

function invalid(error_description: string, status = 400): Response {
  return json(status, { error: 'invalid_client_metadata', error_description } satisfies RegistrationError);
}

export async function handleRegistration(request: Request, deps: { db: Database; limits: RegistrationLimits }): Promise<Response> {
  const clientIp = clientIpFromHeaders(request.headers);
  const limited = await checkRegistrationLimits(deps.db, deps.limits, clientIp);
  if (limited?.kind === 'limited') {
    return json(
      429,
      { error: 'temporarily_unavailable', error_description: `too many registrations; retry after ${limited.retryAfterSeconds} seconds` },
      { 'Retry-After': String(limited.retryAfterSeconds) },
    );
  }
  if (!(request.headers.get('content-type') ?? '').toLowerCase().startsWith('application/json')) {
    return invalid('the request body must be JSON (Content-Type: application/json), RFC 7591 §3.1');
  }
  const text = await readCappedText(request, MAX_REGISTRATION_BODY_BYTES);
  if (text === undefined) return invalid(`the body is larger than ${MAX_REGISTRATION_BODY_BYTES} bytes`, 413);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return invalid('the body is not valid JSON');
  }
  const registration = validateRegistration(body);
  if ('error' in registration) return json(400, registration);
  return json(201, await registerClient(deps.db, registration, clientIp));
}
