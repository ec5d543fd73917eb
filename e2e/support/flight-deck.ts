// Flight Deck, the fixture app of the end-to-end tests, is the real example app (examples/notes) run with the
// fixture's identity: its sign-in goes through Portico, its /api/mcp is guarded by the app kit.
import { startExampleApp, type ExampleApp, type ExampleAppConfig } from '../../examples/notes/app';
import { E2E_ISSUER } from './constants';
import { FLIGHT_DECK } from './fixtures';

export type { ExampleApp };

export function startFlightDeck(options: Partial<ExampleAppConfig> = {}): Promise<ExampleApp> {
  return startExampleApp({
    origin: FLIGHT_DECK.origin,
    issuer: E2E_ISSUER,
    appIdentity: FLIGHT_DECK.identity,
    clientId: FLIGHT_DECK.clientId,
    clientSecret: FLIGHT_DECK.clientSecret,
    name: FLIGHT_DECK.appName,
    ...options,
  });
}
