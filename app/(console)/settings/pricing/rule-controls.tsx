'use client';

import { Button } from '@/components/ui/button';
import type { RuleChange } from './actions';

/** A rule's buttons: move it up or down (a save each), or ask to delete it. */
export function RuleControls({
  index,
  count,
  pending,
  onChange,
  onDelete,
}: {
  index: number;
  count: number;
  pending: boolean;
  onChange: (change: Extract<RuleChange, 'up' | 'down'>) => void;
  onDelete: () => void;
}) {
  const rule = index + 1;
  return (
    <div className="flex flex-wrap gap-x-3 gap-y-1 md:flex-nowrap md:whitespace-nowrap">
      <Button
        variant="link"
        className="text-[12px]"
        data-control="up"
        disabled={pending || index === 0}
        aria-label={`Move rule ${rule} up`}
        onClick={() => onChange('up')}
      >
        Move up
      </Button>
      <Button
        variant="link"
        className="text-[12px]"
        data-control="down"
        disabled={pending || index === count - 1}
        aria-label={`Move rule ${rule} down`}
        onClick={() => onChange('down')}
      >
        Move down
      </Button>
      <Button
        variant="danger-link"
        className="text-[12px]"
        data-control="delete"
        disabled={pending}
        aria-label={`Delete rule ${rule}`}
        onClick={onDelete}
      >
        Delete…
      </Button>
    </div>
  );
}
