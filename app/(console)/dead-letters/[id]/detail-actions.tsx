'use client';

import { useRouter } from 'next/navigation';
import { DeadLetterActions } from '../dead-letter-actions';

/**
 * The row actions on the detail page. The letter stays on this page after
 * an action (its status changes), so focus moves to its status line, which
 * now says what happened, and the page is read again.
 */
export function DetailActions({
  statusId,
  ...props
}: {
  statusId: string;
  deadLetterId: number;
  refusal?: string;
  brakedBy?: string;
  canOverride: boolean;
}) {
  const router = useRouter();
  return (
    <DeadLetterActions
      {...props}
      onDone={() => {
        router.refresh();
        document.getElementById(statusId)?.focus();
      }}
    />
  );
}
