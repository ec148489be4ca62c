import Link from 'next/link';
import { VisibleText } from '@/components/ui/visible-text';
import type { Hold } from '@holdfast/engine/db/schema';
import { keyHref } from '@/lib/console/filter-forms/keys';
import { visibleText } from '@/lib/console/visible-text';

/** A hold's own page. */
export const holdHref = (id: number) => `/holds/${id}`;

/** The held item, linked to where the console shows it (a task's timeline, a key, a dead letter, the locks). */
export function ItemLink({ hold }: { hold: Hold }) {
  const href =
    hold.itemType === 'task'
      ? `/tasks/${encodeURIComponent(hold.itemId)}`
      : hold.itemType === 'key'
        ? keyHref(hold.itemId)
        : hold.itemType === 'dead_letter'
          ? `/dead-letters/${encodeURIComponent(hold.itemId)}`
          : hold.itemType === 'slot'
            ? '/locks'
            : undefined;
  return href ? (
    <Link href={href} className="text-accent hover:underline">
      {hold.itemType}:<VisibleText text={hold.itemId} />
    </Link>
  ) : (
    <>
      {hold.itemType}:<VisibleText text={hold.itemId} />
    </>
  );
}

export const itemLabel = (hold: Hold) => `Hold on ${hold.itemType} ${visibleText(hold.itemId)}`;
