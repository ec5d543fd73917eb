// Which refresh token a token request is rotating, known to the adapter (which consumes it) and to the save of its
// successor (lib/oidc/provider-overrides.ts), through one AsyncLocalStorage scope per provider request.
import { AsyncLocalStorage } from 'node:async_hooks';

interface RotationScope {
  rotatedFrom?: string;
}

const scope = new AsyncLocalStorage<RotationScope>();

/** Runs one provider request in a scope of its own. */
export function inRotationScope<T>(work: () => Promise<T>): Promise<T> {
  return scope.run({}, work);
}

/** The adapter consumed this refresh token (or accepted its replay inside the grace interval). */
export function noteRefreshTokenRotated(id: string): void {
  const store = scope.getStore();
  if (store) store.rotatedFrom = id;
}

/** The refresh token this request is rotating, if any. */
export function refreshTokenBeingRotated(): string | undefined {
  return scope.getStore()?.rotatedFrom;
}
