// The answers of the authorization screens' form routes: always a 303 to the next screen, never cached.

export function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, 'Cache-Control': 'no-store' } });
}

/** Where a form's outcome sends the browser: on to the provider, or back to the card (with an error code). */
export function afterOutcome(card: string, outcome: { kind: 'continue'; location: string } | { kind: 'refused'; error: string } | { kind: 'expired' }): Response {
  if (outcome.kind === 'continue') return seeOther(outcome.location);
  return seeOther(outcome.kind === 'refused' ? `${card}?error=${outcome.error}` : card);
}
