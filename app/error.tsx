'use client';

import { PageError } from './page-error';

/** Catches what the console's own boundary cannot: a failure in its layout (reading the session during an outage). */
export default function RootError(props: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <main className="mx-auto max-w-xl px-6 py-10">
      <PageError {...props} />
    </main>
  );
}
