import Link from 'next/link';
import type { ReactNode } from 'react';
import { Cell } from '@/components/ui/table';
import { stacked } from '@/components/ui/stacked-rows';

/**
 * A settings row's own actions: Edit (a link to the form, filled from the row) and the row's delete control,
 * stacked beside the row on a wide screen and side by side under it on a phone.
 */
export function EditAndDeleteCell({
  editHref,
  editLabel,
  children,
}: {
  editHref: string;
  /** What the link edits, for a screen reader: "Edit the pool of payments/charge". */
  editLabel: string;
  /** The delete control, which confirms on its own. */
  children: ReactNode;
}) {
  return (
    <Cell className={stacked.controls}>
      <div className="flex flex-col items-start gap-1 max-md:flex-row max-md:flex-wrap max-md:gap-x-4">
        <Link href={editHref} className="text-[12px] text-accent hover:underline" aria-label={editLabel}>
          Edit
        </Link>
        {children}
      </div>
    </Cell>
  );
}
