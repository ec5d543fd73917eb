// REST calls that Portico holds for a human's confirmation (428 confirmation_required): the test plays the human
// who says yes, and repeats the call with the token. The first answer must be the challenge.
import { expect } from '@playwright/test';

export async function confirmed(send: (extra: Record<string, unknown>) => Promise<Response>): Promise<Response> {
  const challenge = await send({});
  expect(challenge.status).toBe(428);
  const body = (await challenge.json()) as { error: string; confirmation_token: string; error_description: string };
  expect(body.error).toBe('confirmation_required');
  expect(body.error_description).toContain('Confirmation required');
  return send({ _confirmation_token: body.confirmation_token });
}
