'use client';

import { PageError } from '../page-error';

/** Shown when a console page fails to load; says "database unavailable" during an outage. */
export default function ConsolePageError(props: { error: Error & { digest?: string }; reset: () => void }) {
  return <PageError {...props} />;
}
