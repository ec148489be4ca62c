import Link from 'next/link';
import { LongText } from '@/components/ui/long-text';
import { Moment } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import type { Hold } from '@holdfast/engine/db/schema';
import { keyHref } from '@/lib/console/filter-forms/keys';
import { TaskLink } from '../tasks/links';

/** Recent payload mismatches (a key claimed again with another payload): when, on what, and what differed. */
export function PayloadMismatches({ holds }: { holds: Hold[] }) {
  return (
    <ul className="text-[13px]" data-testid="keys-mismatches">
      {holds.map((hold) => (
        <li key={hold.id}>
          <Moment value={hold.openedAt} precision="second" /> ·{' '}
          {hold.itemType === 'key' ? (
            <Link
              href={keyHref(hold.itemId)}
              className="font-mono text-[12px] text-accent hover:underline [overflow-wrap:anywhere]"
            >
              <VisibleText text={hold.itemId} />
            </Link>
          ) : hold.itemType === 'task' ? (
            <TaskLink taskId={hold.itemId} />
          ) : (
            <>
              {hold.itemType}:<VisibleText text={hold.itemId} />
            </>
          )}{' '}
          · <LongText text={hold.detail} lines={2} /> ({hold.status})
        </li>
      ))}
    </ul>
  );
}
