'use client';

import { useEffect, useState } from 'react';
import { Button } from '@/components/ui/button';

/**
 * The body of the console's error boundaries. A production build hides a
 * server error's message from the browser, so the boundary asks /api/health
 * whether the database is down and says so plainly; any other failure shows
 * its log reference. Never a stack trace.
 */
export function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const [databaseDown, setDatabaseDown] = useState<boolean | undefined>(undefined);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new error asks the health check again.
  useEffect(() => {
    let live = true;
    fetch('/api/health', { cache: 'no-store' })
      .then(async (response) => ((await response.json()) as { down?: string[] }).down?.includes('database') === true)
      .catch(() => false)
      .then((down) => live && setDatabaseDown(down));
    return () => {
      live = false;
    };
  }, [error]);

  return (
    <div
      role="alert"
      data-testid="page-error"
      className="rounded-lg border border-line bg-danger-soft px-5 py-6 text-[13px]"
    >
      {databaseDown ? (
        <>
          <p className="font-medium text-danger">Database unavailable.</p>
          <p className="mt-1 text-muted">
            Holdfast cannot reach its database right now, so this page cannot be shown. Nothing was lost: try again in a
            moment.
          </p>
        </>
      ) : (
        <>
          <p className="font-medium text-danger">This page could not be loaded.</p>
          <p className="mt-1 text-muted">
            The server logged the problem{error.digest ? ` (reference ${error.digest})` : ''}. Try again; if it keeps
            failing, check /api/health.
          </p>
        </>
      )}
      <Button variant="primary" size="md" onClick={reset} className="mt-3">
        Try again
      </Button>
    </div>
  );
}
