// What an MCP host keeps for the MCP SDK's OAuth client (either SDK: 1.x's and v2's OAuthClientProvider have the
// same shape): exactly what the SDK hands it, nothing decided here. The "browser" is the test, which answers the
// authorization the SDK asked for (`pending`) through Portico's own sign-in and consent functions.
export class InMemoryOAuthClient<Information extends { client_id: string }, Tokens> {
  information?: Information;
  saved?: Tokens;
  verifier?: string;
  /** The authorization URL the SDK sent the user agent to, not yet answered. */
  pending?: URL;
  /** Every client id the SDK registered, in order. */
  readonly registered: string[] = [];
  /** What the SDK asked to forget, in order. */
  readonly invalidated: string[] = [];

  constructor(
    readonly redirectUrl: string,
    private readonly clientName: string,
  ) {}

  get clientMetadata() {
    return { client_name: this.clientName, redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: Information) {
    this.information = information;
    this.registered.push(information.client_id);
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: Tokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.pending = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier!;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    this.invalidated.push(scope);
    if (scope === 'all' || scope === 'client') this.information = undefined;
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
  }
}
