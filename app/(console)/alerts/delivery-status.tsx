import clsx from 'clsx';
import type { DeliveryStatus } from '@/lib/queries/alerts';

const tone: Record<DeliveryStatus, string> = {
  pending: 'bg-warn-soft text-warn',
  delivered: 'bg-accent-soft text-ok',
  failed: 'bg-danger-soft text-danger',
};

/** A delivery's status as a small badge. */
export function DeliveryStatusBadge({ status }: { status: DeliveryStatus }) {
  return (
    <span
      className={clsx('whitespace-nowrap rounded px-1.5 py-px text-[11px] font-semibold', tone[status])}
      data-testid="delivery-status"
    >
      {status}
    </span>
  );
}
