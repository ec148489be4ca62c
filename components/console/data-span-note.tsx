import { dataSpanNotice } from '@/lib/console/data-span';
import type { TimeRange } from '@holdfast/protocol/time-window';

/** Says how much of the window the history really covers, when it is younger than the window; else nothing. */
export function DataSpanNote({ range, dataBegins }: { range: TimeRange; dataBegins: Date | null }) {
  const notice = dataSpanNotice(range, dataBegins);
  if (notice === null) return null;
  return (
    <p className="mb-3 text-[12px] text-muted" data-testid="data-span-notice">
      {notice}
    </p>
  );
}
