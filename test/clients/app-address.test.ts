import { describe, expect, it } from 'vitest';
import { displayedAppAddress, type AppSignInContext } from '../../lib/clients/app-context';

const context: AppSignInContext = {
  clientKind: 'app',
    appDisabled: false,
  app: { id: 'a', name: 'Billing', avatarUrl: null, publishOrigin: 'https://billing.example', descriptions: {} },
  redirectUris: ['https://eu.billing.example/callback'],
  org: { id: 'o', name: 'Acme', defaultLocale: null, brand: null },
};

describe('the address on the sign-in card', () => {
  it("comes from the request only for the app's own client with an exactly registered redirect URI", () => {
    expect(displayedAppAddress(context, 'https://eu.billing.example/callback')).toBe('https://eu.billing.example');
  });

  it('falls back to the publish address for anything else', () => {
    expect(displayedAppAddress(context, 'https://eu.billing.example/callback/')).toBe('https://billing.example');
    expect(displayedAppAddress(context, 'https://evil.example/callback')).toBe('https://billing.example');
    expect(displayedAppAddress(context, ['https://eu.billing.example/callback'])).toBe('https://billing.example');
    expect(displayedAppAddress({ ...context, clientKind: 'external' }, 'https://eu.billing.example/callback')).toBe('https://billing.example');
    // A native app's private-use scheme has no origin ("null" to URL): never shown.
    expect(displayedAppAddress({ ...context, redirectUris: ['com.billing.app:/callback'] }, 'com.billing.app:/callback')).toBe('https://billing.example');
  });

  it('is absent when the app has no publish address', () => {
    expect(displayedAppAddress({ ...context, app: { ...context.app, publishOrigin: null } }, 'https://evil.example/cb')).toBeUndefined();
  });
});
