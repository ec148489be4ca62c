import { Moment } from '@/components/ui/time';

/**
 * When a rolling hour has room: it never runs out at a moment (what leaves it makes room as what comes in fills
 * it), so it says whether it is full now and, if so, when its oldest five minutes leave it.
 */
export function RollingRunsOut({ used, limit, nextTurn }: { used: number; limit: number; nextTurn: Date }) {
  if (used >= limit) {
    return (
      <span className="text-danger">
        full; room again as spend leaves it, next at <Moment value={nextTurn} />
      </span>
    );
  }
  return <span className="text-muted">rolling: spend leaves it an hour after it began</span>;
}
