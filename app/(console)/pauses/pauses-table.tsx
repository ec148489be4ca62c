import Link from 'next/link';
import { stacked } from '@/components/ui/stacked-rows';
import { LongText } from '@/components/ui/long-text';
import { ActionsHeaderCell, Cell, HeaderCell, Table } from '@/components/ui/table';
import { Moment, MomentBy } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import { formatCount } from '@/lib/console/format';
import { BACKLOG_MINUTES, pauseTargetText, type PauseView } from '@/lib/queries/pauses';
import { stepDetailHref } from '@/lib/console/step-href';
import { EndRampForm, ResumeForm } from './pause-forms';

const stateLabel = { paused: 'Paused', ramping: 'Ramping up', ended: 'Ended' } as const;

/** What a pause covers, linked to the step's page where it names one. */
export function PauseTarget({ pause }: { pause: PauseView }) {
  if (pause.scope === 'step' && pause.agent && pause.step) {
    return (
      <Link
        href={stepDetailHref(pause.agent, pause.step)}
        className="font-mono text-[12px] text-accent hover:underline"
      >
        <VisibleText text={`${pause.agent}/${pause.step}`} />
      </Link>
    );
  }
  return (
    <span className="text-[12px]">
      {pause.scope === 'agent' ? 'agent ' : 'downstream '}
      <span className="font-mono">
        <VisibleText text={(pause.scope === 'agent' ? pause.agent : pause.downstream) ?? ''} />
      </span>
    </span>
  );
}

/** Until when a pause holds, or how its ramp runs, in words. */
function holdsUntil(pause: PauseView) {
  if (pause.state === 'ramping' && pause.rampEndsAt) {
    return (
      <>
        {formatCount(pause.rampStartPerMinute ?? 0)} begins in the first minute, rising; unlimited from{' '}
        <Moment value={pause.rampEndsAt} />
      </>
    );
  }
  if (pause.state === 'ended') {
    return (
      <>
        <Moment value={pause.resumedAt ?? pause.endsAt ?? pause.pausedAt} />{' '}
        <span className="text-muted">({pause.resumedBy ?? 'its end time'})</span>
      </>
    );
  }
  return pause.endsAt ? <Moment value={pause.endsAt} /> : 'until resumed';
}

/** Pauses with their reason, who set them, until when, and the backlog they hold back; `resume` adds the action. */
export function PausesTable({
  pauses,
  resume,
  headingId,
  testId,
  caption,
}: {
  pauses: PauseView[];
  resume: boolean;
  headingId: string;
  testId: string;
  caption: string;
}) {
  const untilLabel = pauses.some((pause) => pause.state === 'ended') ? 'Ended' : 'Until';
  return (
    <Table data-testid={testId} className={stacked.table}>
      <caption className="sr-only">{caption}</caption>
      <thead className={stacked.head}>
        <tr>
          <HeaderCell>What</HeaderCell>
          <HeaderCell>State</HeaderCell>
          <HeaderCell>Reason</HeaderCell>
          <HeaderCell>Paused</HeaderCell>
          <HeaderCell>{untilLabel}</HeaderCell>
          <HeaderCell numeric title={`Begins turned away in the last ${BACKLOG_MINUTES} minutes`}>
            Waiting begins
          </HeaderCell>
          <HeaderCell numeric title={`Distinct tasks behind those begins in the last ${BACKLOG_MINUTES} minutes`}>
            Tasks
          </HeaderCell>
          {resume ? <ActionsHeaderCell /> : null}
        </tr>
      </thead>
      <tbody className={stacked.body}>
        {pauses.map((pause) => (
          <tr key={pause.id} data-testid={`pause-row-${pause.id}`} className={`align-top ${stacked.row}`}>
            <Cell className={`min-w-32 [overflow-wrap:anywhere] ${stacked.cell}`} data-label="What">
              <PauseTarget pause={pause} />
            </Cell>
            <Cell className={stacked.cell} data-label="State">
              <span className={pause.state === 'paused' ? 'font-medium text-danger' : undefined}>
                {stateLabel[pause.state]}
              </span>
            </Cell>
            <Cell className={`min-w-48 max-w-md ${stacked.cell}`} data-label="Reason">
              <LongText text={pause.reason} lines={2} />
            </Cell>
            <Cell className={`text-[12px] ${stacked.cell}`} data-label="Paused">
              <MomentBy at={pause.pausedAt} by={pause.pausedBy} mutedBy />
            </Cell>
            <Cell className={`text-[12px] ${stacked.cell}`} data-label={untilLabel}>
              <span className="min-w-0">{holdsUntil(pause)}</span>
            </Cell>
            <Cell numeric className={stacked.cell} data-label="Waiting begins" data-testid="pause-waiting-begins">
              {formatCount(pause.waitingBegins)}
            </Cell>
            <Cell numeric className={stacked.cell} data-label="Tasks" data-testid="pause-waiting-tasks">
              {formatCount(pause.waitingTasks)}
            </Cell>
            {resume ? (
              <Cell className={`min-w-72 ${stacked.controls}`}>
                {pause.state === 'paused' ? (
                  <ResumeForm pauseId={pause.id} target={pauseTargetText(pause)} headingId={headingId} />
                ) : pause.state === 'ramping' ? (
                  <EndRampForm pauseId={pause.id} target={pauseTargetText(pause)} headingId={headingId} />
                ) : null}
              </Cell>
            ) : null}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
