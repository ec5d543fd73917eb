// How long the view waits for things it cannot see fail (shared with the tests that jump over these waits).

/** How long the view waits for the framed central's "ready" before it removes the frame and leaves the link. */
export const FRAME_READY_TIMEOUT_MS = 10_000;
