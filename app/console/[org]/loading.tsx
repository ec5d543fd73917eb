export default function Loading() {
  return (
    <div role="status" aria-live="polite" className="panel animate-pulse text-sm text-slate-500">
      Loading…
    </div>
  );
}
