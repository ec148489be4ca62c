import Link from 'next/link';
import { formatCount } from '@/lib/console/format';

/**
 * A line on the Overview and Steps while anything is paused or ramping up:
 * paused work shows no failures, so the figures alone would not say why a
 * step went quiet.
 */
export function PausesNotice({
  count,
  targets,
  waitingBegins,
  backlogMinutes,
}: {
  count: number;
  targets: string[];
  waitingBegins: number;
  backlogMinutes: number;
}) {
  if (count === 0) return null;
  const more = count - targets.length;
  return (
    <p
      role="status"
      className="mb-4 rounded-lg border border-danger bg-danger-soft px-3 py-2 text-[13px] [overflow-wrap:anywhere]"
      data-testid="pauses-notice"
    >
      <strong>{count === 1 ? '1 pause holds' : `${formatCount(count)} pauses hold`} work now:</strong>{' '}
      {targets.join(', ')}
      {more > 0 ? ` and ${formatCount(more)} more` : ''}
      {waitingBegins > 0
        ? `; ${formatCount(waitingBegins)} begin(s) turned away in the last ${backlogMinutes} minutes`
        : ''}
      .{' '}
      <Link href="/pauses" className="text-accent underline">
        See Pauses
      </Link>
    </p>
  );
}
