import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { CopyButton } from '@/components/ui/copy-button';
import { Fact } from '@/components/ui/fact';
import { LongText } from '@/components/ui/long-text';
import { PageHeader } from '@/components/ui/page-header';
import { Age, Moment } from '@/components/ui/time';
import { decide, describeBrakeRefusals, editedTaskIdOf } from '@holdfast/engine/core';
import { formatCount, formatMicros } from '@/lib/console/format';
import { corePolicyFrom, getEnvironment } from '@holdfast/engine/env';
import { getDeadLetterDetail } from '@/lib/queries/dead-letter-detail';
import { parseRowId } from '@/lib/queries/row-id';
import { ReadSourceNotice } from '@/components/read-source-notice';
import { readConsole } from '@/lib/server/read-source/read-console';
import { readNotice } from '@/lib/server/read-source/notice';
import { requirePerson } from '@/lib/server/session';
import { DetailActions } from './detail-actions';
import { EditedRedrive } from './edited-redrive';
import { AttemptsSection, HoldsSection, RedrivesSection } from './detail-sections';
import { VisibleText } from '@/components/ui/visible-text';
import { OwnerName } from '@/components/console/owner-name';
import { getStepOwner } from '@/lib/queries/step-owners';

export const metadata: Metadata = { title: 'Dead letter' };
export const dynamic = 'force-dynamic';

const STATUS_ID = 'dead-letter-status';

export default async function DeadLetterPage({ params }: { params: Promise<{ id: string }> }) {
  const person = await requirePerson();
  const id = parseRowId((await params).id);
  if (id === undefined) notFound();
  const now = new Date();
  const { redriveBrakes } = corePolicyFrom(getEnvironment());
  // A dead letter the replica has not received yet is looked up on the primary before answering 404.
  const { value: detail, source } = await readConsole(
    (db) => getDeadLetterDetail(db, id, { brakes: redriveBrakes, now }),
    { orPrimaryWhen: (found) => !found },
  );
  if (!detail) notFound();
  const { deadLetter: letter } = detail;
  // Who answers for the step that failed: its owner (not the hold's, which a person may have reassigned).
  const { value: stepOwner } = await readConsole((db) => getStepOwner(db, { agent: letter.agent, step: letter.step }));
  const redrive = decide(person, 'dead_letter.redrive');
  const payload = JSON.stringify(letter.payload, null, 2);
  // An edited redrive of this letter runs as a new task: the status line links to it.
  const runsAs = detail.redrives.find((row) => row.deadLetterId === letter.id && row.payloadEdited)?.taskId;

  return (
    <>
      <p className="mb-2 text-[13px]">
        <Link href="/dead-letters" className="text-accent hover:underline">
          ← Dead letters
        </Link>
      </p>
      <PageHeader
        title={`Dead letter ${letter.id}`}
        description={`${letter.agent}/${letter.step} on ${letter.queue}: ${letter.reason.replaceAll('_', ' ')} after ${formatCount(letter.attempts)} attempt${letter.attempts === 1 ? '' : 's'}.`}
      />
      <ReadSourceNotice notice={readNotice(source)} />
      <p id={STATUS_ID} tabIndex={-1} className="mb-4 text-[14px] focus:outline-none" data-testid="dead-letter-status">
        Status: <strong>{letter.status}</strong>
        {letter.status === 'pending' ? (
          <>
            , waiting <Age since={letter.createdAt} now={now} />
          </>
        ) : (
          <>
            {' '}
            since <Moment value={letter.updatedAt} />
            {runsAs ? (
              <>
                , as task{' '}
                <Link
                  href={`/tasks/${encodeURIComponent(runsAs)}`}
                  className="font-mono text-accent hover:underline [overflow-wrap:anywhere]"
                  data-testid="dead-letter-runs-as"
                >
                  <VisibleText text={runsAs} />
                </Link>{' '}
                with an edited payload
              </>
            ) : null}
          </>
        )}
      </p>

      <dl className="grid grid-cols-2 gap-3 text-[13px] lg:grid-cols-4" data-testid="dead-letter-facts">
        <Fact label="Task">
          <Link href={`/tasks/${encodeURIComponent(letter.taskId)}`} className="font-mono text-accent hover:underline">
            <VisibleText text={letter.taskId} />
          </Link>
        </Fact>
        <Fact label="Queue">
          <span className="font-mono">
            <VisibleText text={letter.queue} />
          </span>
        </Fact>
        <Fact label="Agent / step">
          <Link
            href={`/steps/${encodeURIComponent(letter.agent)}/${encodeURIComponent(letter.step)}`}
            className="font-mono text-accent hover:underline"
          >
            <VisibleText text={letter.agent} />/<VisibleText text={letter.step} />
          </Link>
        </Fact>
        <Fact label="Step owner">
          <OwnerName owner={stepOwner} noneText="none named" />
          {stepOwner.contact ? (
            <span className="block text-[12px] text-muted [overflow-wrap:anywhere]">
              on call: <VisibleText text={stepOwner.contact} />
            </span>
          ) : null}
        </Fact>
        <Fact label="Reason">{letter.reason.replaceAll('_', ' ')}</Fact>
        <Fact label="Error class">
          <span className="font-mono">{letter.errorClass ?? '—'}</span>
        </Fact>
        <Fact label="Attempts">{formatCount(letter.attempts)}</Fact>
        <Fact label="Spend so far">{formatMicros(letter.spendMicros)}</Fact>
        <Fact label="Dead-lettered">
          <Moment value={letter.createdAt} precision="second" />
        </Fact>
      </dl>

      {letter.status === 'pending' ? (
        <section className="mt-6 max-w-3xl" aria-label="Act on this dead letter">
          <h2 className="mb-2 text-[15px] font-semibold">Redrive or discard</h2>
          <DetailActions
            statusId={STATUS_ID}
            deadLetterId={letter.id}
            refusal={redrive.allowed ? undefined : redrive.reason}
            brakedBy={detail.brakes.length > 0 ? describeBrakeRefusals(detail.brakes) : undefined}
            canOverride={decide(person, 'dead_letter.redrive_override').allowed}
          />
          {redrive.allowed ? (
            <div className="mt-3">
              <EditedRedrive
                deadLetterId={letter.id}
                taskId={letter.taskId}
                runsAsTaskId={editedTaskIdOf(letter)}
                payloadJson={payload}
                brakedBy={detail.brakes.length > 0 ? describeBrakeRefusals(detail.brakes) : undefined}
                canOverride={decide(person, 'dead_letter.redrive_override').allowed}
                statusId={STATUS_ID}
              />
            </div>
          ) : null}
        </section>
      ) : null}

      <section className="mt-8" aria-label="Last error" data-testid="dead-letter-error">
        <h2 className="mb-2 text-[15px] font-semibold">Last error</h2>
        {letter.lastError ? (
          <div className="font-mono text-[12px]">
            <LongText text={letter.lastError} lines={4} />
          </div>
        ) : (
          <p className="text-[13px] text-muted">No error text was reported.</p>
        )}
      </section>

      <section className="mt-8" aria-label="Payload" data-testid="dead-letter-payload">
        <div className="mb-2 flex items-center gap-3">
          <h2 className="text-[15px] font-semibold">Payload</h2>
          <CopyButton text={payload} label="Payload" testId="copy-payload" />
        </div>
        {/* Focusable, so the scrolling block can be scrolled from the keyboard. */}
        <pre
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to scroll by keyboard.
          tabIndex={0}
          className="max-h-96 overflow-auto whitespace-pre-wrap rounded-lg border border-line bg-surface-raised p-3 font-mono text-[12px] [overflow-wrap:anywhere]"
          data-testid="dead-letter-payload-json"
        >
          {/* Strings in the payload are the agent's: their bidi controls are shown, not applied (Copy copies them as stored). */}
          <VisibleText text={payload} />
        </pre>
      </section>

      <AttemptsSection attempts={detail.attempts} step={letter.step} />
      <HoldsSection holds={detail.holds} />
      <RedrivesSection redrives={detail.redrives} deadLetterId={letter.id} />
    </>
  );
}
