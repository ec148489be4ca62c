import type { ReactNode } from 'react';

/**
 * A page's section on a card: the surface, the border and the heading that names it for a screen reader (shown,
 * or read only, as `hideHeading` says).
 */
export function CardSection({
  headingId,
  heading,
  testId,
  hideHeading = false,
  className = '',
  children,
}: {
  headingId: string;
  heading: ReactNode;
  testId: string;
  hideHeading?: boolean;
  /** Its spacing and text size where they differ from a plain card's. */
  className?: string;
  children: ReactNode;
}) {
  return (
    <section
      aria-labelledby={headingId}
      className={`mb-4 rounded-lg border border-line bg-surface px-4 py-3 ${className}`}
      data-testid={testId}
    >
      <h2 id={headingId} className={hideHeading ? 'sr-only' : 'text-[13px] font-semibold'}>
        {heading}
      </h2>
      {children}
    </section>
  );
}
