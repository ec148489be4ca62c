import Link from 'next/link';
import { LongText } from '@/components/ui/long-text';
import { Moment } from '@/components/ui/time';
import { formatMicros } from '@/lib/console/format';
import type { TaskTimeline } from '@/lib/queries/task-timeline';
import { StepLink } from '../links';
import { VisibleText } from '@/components/ui/visible-text';

/** The task's dead letters and holds, open or settled, under its timeline. */
export function TaskParked({ deadLetters, holds }: Pick<TaskTimeline, 'deadLetters' | 'holds'>) {
  return (
    <div className="mt-5 grid gap-4 lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
      <section aria-labelledby="task-dead-letters">
        <h2 id="task-dead-letters" className="mb-2 text-[13px] font-semibold">
          Dead letters
        </h2>
        {deadLetters.length === 0 ? (
          <p className="text-[13px] text-muted">None: no step of this task ran out of retries.</p>
        ) : (
          <ul className="flex flex-col gap-2" data-testid="task-dead-letters">
            {deadLetters.map((letter) => (
              <li
                key={letter.id}
                className="min-w-0 rounded-lg border border-line bg-surface p-3 text-[13px] [overflow-wrap:anywhere]"
              >
                <span className="font-mono text-[12px]">
                  <StepLink agent={letter.agent} step={letter.step} />
                </span>{' '}
                · {letter.status} · {letter.reason} · {letter.attempts} attempt(s) · {formatMicros(letter.spendMicros)}{' '}
                · <Moment value={letter.createdAt} />
                <span className="block text-[12px] text-muted">{letter.errorClass}</span>
                {letter.lastError ? (
                  <div className="text-[12px] text-muted">
                    <LongText text={letter.lastError} lines={2} />
                  </div>
                ) : null}
                <Link
                  href={`/dead-letters/${letter.id}`}
                  className="mt-1 inline-block text-[12px] text-accent underline"
                >
                  {letter.status === 'pending' ? 'Redrive or discard dead letter' : 'Dead letter'} #{letter.id}
                </Link>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="task-holds">
        <h2 id="task-holds" className="mb-2 text-[13px] font-semibold">
          Holds
        </h2>
        {holds.length === 0 ? (
          <p className="text-[13px] text-muted">None: nothing of this task waits for a person.</p>
        ) : (
          <ul className="flex flex-col gap-2" data-testid="task-holds">
            {holds.map((hold) => (
              <li
                key={hold.id}
                className="min-w-0 rounded-lg border border-line bg-surface p-3 text-[13px] [overflow-wrap:anywhere]"
              >
                <Link href={`/holds/${hold.id}`} className="text-accent hover:underline" data-testid="task-hold-link">
                  Hold {hold.id}
                </Link>{' '}
                · <span className="font-mono text-[12px]">{hold.reason}</span> · {hold.status}
                {hold.resolution ? ` (${hold.resolution} by ${hold.clearedBy})` : ''} · owner{' '}
                <VisibleText text={hold.owner} /> · opened <Moment value={hold.openedAt} />
                <div className="text-[12px] text-muted">
                  <LongText text={hold.detail} lines={2} />
                </div>
                {hold.status === 'open' ? (
                  <Link href={`/holds/${hold.id}`} className="mt-1 inline-block text-[12px] text-accent underline">
                    Act on it: clear or reassign
                  </Link>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
