'use client';

/** Shown when a console page fails to load: says so plainly and offers a retry; details stay in the server log. */
export default function ConsolePageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="rounded-lg border border-line bg-danger-soft px-5 py-6 text-[13px]">
      <p className="font-medium text-danger">This page could not be loaded.</p>
      <p className="mt-1 text-muted">
        The server logged the problem{error.digest ? ` (reference ${error.digest})` : ''}. Try again; if it keeps failing, check that the database is up (/api/health).
      </p>
      <button type="button" onClick={reset} className="mt-3 rounded bg-accent px-3 py-1.5 font-medium text-on-accent">
        Try again
      </button>
    </div>
  );
}
