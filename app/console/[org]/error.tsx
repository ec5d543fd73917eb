'use client';
// Shown when a console page fails: no internals, a way to retry.
export default function ConsoleError({ reset }: { error: Error; reset: () => void }) {
  return (
    <div role="alert" className="panel">
      <h1 className="mb-2 text-lg font-semibold">This page could not be loaded</h1>
      <p className="mb-4 text-sm text-slate-600">Something went wrong on our side. Nothing you entered was lost by looking at this page.</p>
      <button type="button" className="btn btn-primary" onClick={() => reset()}>
        Try again
      </button>
    </div>
  );
}
