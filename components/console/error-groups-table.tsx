import Link from 'next/link';
import { LongText } from '@/components/ui/long-text';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { Age } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import { deadLettersHref } from '@/lib/console/filter-forms/dead-letters';
import { formatCount } from '@/lib/console/format';
import type { ErrorGroupRow } from '@/lib/queries/error-groups';

/** Rising, falling or steady against the hours before, per hour so a partial last hour compares fairly. */
function Trend({ failures, previous, windowHours }: { failures: number; previous: number; windowHours: number }) {
  if (previous === 0) return <span className="text-danger">new in this window</span>;
  const change = failures / previous - 1;
  if (Math.abs(change) < 0.1) return <span className="text-muted">steady ({formatCount(previous)} before)</span>;
  const percent = `${Math.round(Math.abs(change) * 100)} %`;
  return (
    <span
      className={change > 0 ? 'text-danger' : 'text-muted'}
      title={`${formatCount(previous)} in the ${windowHours} hour(s) before`}
    >
      {change > 0 ? '↑' : '↓'} {percent} ({formatCount(previous)} before)
    </span>
  );
}

/**
 * One row per error group: its pattern and a real error, where it fails, how
 * often and whether rising, since when, and its pending dead letters (a link
 * to them, where a bulk redrive or discard of the group starts).
 */
export function ErrorGroupsTable({
  groups,
  now,
  windowHours,
}: {
  groups: ErrorGroupRow[];
  now: Date;
  windowHours: number;
}) {
  return (
    <Table data-testid="error-groups">
      <caption className="sr-only">Error groups, most failures first</caption>
      <thead>
        <tr>
          <HeaderCell>Error</HeaderCell>
          <HeaderCell>Step</HeaderCell>
          <HeaderCell numeric>Failures</HeaderCell>
          <HeaderCell>Trend</HeaderCell>
          <HeaderCell>Seen</HeaderCell>
          <HeaderCell numeric>Dead letters</HeaderCell>
        </tr>
      </thead>
      <tbody>
        {groups.map((group) => (
          <tr key={group.fingerprint} className="align-top" data-testid={`error-group-${group.fingerprint}`}>
            <Cell className="min-w-48 max-w-xl sm:min-w-64">
              <div className="font-mono text-[12px] [overflow-wrap:anywhere]">
                <VisibleText text={group.pattern || '(no error text)'} />
              </div>
              {/* On a phone the count and trend stand here too: the columns holding them are off screen. */}
              <div className="mt-0.5 text-[12px] sm:hidden" data-testid="error-group-phone-count">
                <strong>{formatCount(group.failures)}</strong> failure{group.failures === 1 ? '' : 's'} ·{' '}
                <Trend failures={group.failures} previous={group.previousFailures} windowHours={windowHours} />
              </div>
              {group.sampleError ? (
                <div className="mt-0.5 text-[12px] text-muted">
                  <LongText text={group.sampleError} lines={2} />
                </div>
              ) : null}
            </Cell>
            <Cell className="min-w-36 [overflow-wrap:anywhere]">
              <Link
                href={`/steps/${encodeURIComponent(group.agent)}/${encodeURIComponent(group.step)}`}
                className="font-mono text-accent hover:underline"
              >
                <VisibleText text={group.agent} />/<VisibleText text={group.step} />
              </Link>
              <div className="font-mono text-[12px] text-muted">{group.errorClass ?? '—'}</div>
            </Cell>
            <Cell numeric>
              {formatCount(group.failures)}
              <div className="text-[12px] text-muted" title="Distinct tasks per hour, summed over the window's hours">
                ≈ {formatCount(group.taskHours)} task{group.taskHours === 1 ? '' : 's'}
              </div>
            </Cell>
            <Cell className="whitespace-nowrap text-[12px]">
              <Trend failures={group.failures} previous={group.previousFailures} windowHours={windowHours} />
            </Cell>
            <Cell className="whitespace-nowrap text-[12px]">
              first <Age since={group.firstSeenAt} now={now} /> ago
              <div>
                last <Age since={group.lastSeenAt} now={now} /> ago
              </div>
            </Cell>
            <Cell numeric>
              {group.pendingDeadLetters > 0 ? (
                <Link
                  href={deadLettersHref({ group: group.fingerprint })}
                  className="text-accent hover:underline"
                  data-testid={`error-group-dead-letters-${group.fingerprint}`}
                >
                  {formatCount(group.pendingDeadLetters)} pending
                </Link>
              ) : (
                <span className="text-muted">none</span>
              )}
            </Cell>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
