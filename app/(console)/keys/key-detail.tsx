import Link from 'next/link';
import { LongText } from '@/components/ui/long-text';
import { Moment } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import { formatMicros } from '@/lib/console/format';
import type { getKeyDetail } from '@/lib/queries/keys';
import { StepLink, TaskLink } from '../tasks/links';

const when = (moment: Date | null) => <Moment value={moment} precision="second" />;

/** One key as `?show=` names it: what it did, its attempts and its holds; or, gone, that it is gone. */
export function KeyDetail({ shown, detail }: { shown: string; detail: Awaited<ReturnType<typeof getKeyDetail>> }) {
  return detail ? (
    <section
      aria-labelledby="key-detail"
      className="mb-6 rounded-lg border border-line bg-surface p-4"
      data-testid="key-detail"
    >
      <h2 id="key-detail" className="mb-2 font-mono text-[14px] font-semibold [overflow-wrap:anywhere]">
        <VisibleText text={detail.key.key} />
      </h2>
      <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-[13px] sm:grid-cols-[max-content_minmax(0,1fr)]">
        <dt className="text-muted">Status</dt>
        <dd data-testid="key-status">{detail.key.status}</dd>
        <dt className="text-muted">Payload hash</dt>
        <dd className="break-all font-mono text-[12px]">{detail.key.requestHash}</dd>
        <dt className="text-muted">Stored result</dt>
        <dd className="font-mono text-[12px]">
          {detail.key.result === null ? '—' : <LongText text={JSON.stringify(detail.key.result)} lines={3} />}
        </dd>
        <dt className="text-muted">Error</dt>
        <dd>
          {detail.key.errorClass ? (
            <>
              {detail.key.errorClass}: <LongText text={detail.key.errorText ?? ''} lines={2} />
            </>
          ) : (
            '—'
          )}
        </dd>
        <dt className="text-muted">In progress until</dt>
        <dd>{when(detail.key.lockedUntil)}</dd>
        <dt className="text-muted">Kept until</dt>
        <dd>{when(detail.key.expiresAt)}</dd>
        <dt className="text-muted">Acquisitions / claim calls</dt>
        <dd>
          {detail.key.acquisitions} / {detail.key.claimCalls} (each claim past the first was a duplicate delivery)
        </dd>
        <dt className="text-muted">Downstream deduplicates</dt>
        <dd>{detail.key.downstreamIdempotent ? 'yes' : 'no: an interrupted attempt is held as uncertain'}</dd>
        <dt className="text-muted">Task</dt>
        <dd>{detail.key.taskId ? <TaskLink taskId={detail.key.taskId} /> : '—'}</dd>
        <dt className="text-muted">Step</dt>
        <dd>{detail.key.step ? <StepLink agent={detail.key.agent} step={detail.key.step} /> : '—'}</dd>
      </dl>
      <h3 className="mb-1 mt-4 text-[13px] font-semibold">Attempts under this key</h3>
      {detail.attempts.length === 0 ? (
        <p className="text-[13px] text-muted">None recorded.</p>
      ) : (
        <ul className="flex flex-col gap-1 text-[13px]" data-testid="key-attempts">
          {detail.attempts.map((attempt) => (
            <li key={`${attempt.attemptNumber}-${attempt.startedAt.toISOString()}`}>
              #{attempt.attemptNumber} {attempt.outcome} at {when(attempt.startedAt)},{' '}
              {formatMicros(attempt.costMicros)}
              {attempt.errorText ? (
                <div className="text-[12px] text-muted">
                  {attempt.errorClass}: <LongText text={attempt.errorText} lines={2} />
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      <h3 className="mb-1 mt-4 text-[13px] font-semibold">Holds</h3>
      {detail.holds.length === 0 ? (
        <p className="text-[13px] text-muted">None.</p>
      ) : (
        <ul className="flex flex-col gap-1 text-[13px]">
          {detail.holds.map((hold) => (
            <li key={hold.id}>
              {hold.reason} ({hold.status}), owner <VisibleText text={hold.owner} />:{' '}
              <LongText text={hold.detail} lines={2} />
              {hold.status === 'open' ? (
                <Link
                  href={`/holds?${new URLSearchParams({ reason: hold.reason })}`}
                  className="text-[12px] text-accent underline"
                  data-testid="key-hold-link"
                >
                  {hold.itemType === 'key' ? 'Settle it on Holds' : 'Act on it on Holds'}
                </Link>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  ) : (
    <section
      aria-labelledby="no-such-key"
      className="mb-5 rounded-lg border border-dashed border-line bg-surface px-4 py-3"
      data-testid="no-such-key"
    >
      <h2 id="no-such-key" className="text-[14px] font-semibold">
        No such key
      </h2>
      <p className="text-[13px] text-muted [overflow-wrap:anywhere]">
        No key {shown}: it never existed, or it expired and was swept. Look it up by its start, its task or its step
        above.
      </p>
    </section>
  );
}
