import { EmptyState } from '@/components/ui/empty-state';
import { LongText } from '@/components/ui/long-text';
import { stacked } from '@/components/ui/stacked-rows';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { Moment } from '@/components/ui/time';
import { formatAge, formatCount } from '@/lib/console/format';
import type { SilenceList, SilenceRow } from '@/lib/queries/alert-silences';
import { alertKindLabels } from './alert-labels';
import { EndSilenceButton } from './end-silence-button';
import { SilenceForm, type SilencePrefill } from './silence-form';

/** What a silence matches, in words: "Budget refusals · step:research/* · team payments". */
export function describeSilence(silence: Pick<SilenceRow, 'kind' | 'identityPattern' | 'team'>): string {
  return [
    silence.kind ? alertKindLabels[silence.kind].title : 'any rule',
    silence.identityPattern,
    silence.team ? `team ${silence.team}` : null,
  ]
    .filter(Boolean)
    .join(' · ');
}

function Matches({ silence }: { silence: SilenceRow }) {
  return (
    <div className="min-w-0">
      <div className="font-medium">{silence.kind ? alertKindLabels[silence.kind].title : 'Any rule'}</div>
      <div className="font-mono text-[12px] [overflow-wrap:anywhere]">
        {silence.identityPattern ?? <span className="font-sans text-muted">every subject</span>}
      </div>
      {silence.team ? <div className="text-[12px]">team {silence.team}</div> : null}
    </div>
  );
}

function SilencesTable({
  silences,
  now,
  caption,
  testId,
  mayEnd,
  headingId,
}: {
  silences: SilenceRow[];
  now: Date;
  caption: string;
  testId: string;
  mayEnd: boolean;
  headingId: string;
}) {
  return (
    <Table data-testid={testId} className={stacked.table}>
      <caption className="sr-only">{caption}</caption>
      <thead className={stacked.head}>
        <tr>
          <HeaderCell>Matches</HeaderCell>
          <HeaderCell>Until</HeaderCell>
          <HeaderCell>By</HeaderCell>
          <HeaderCell>Reason</HeaderCell>
          {mayEnd ? <HeaderCell>Action</HeaderCell> : null}
        </tr>
      </thead>
      <tbody className={stacked.body}>
        {silences.map((silence) => (
          <tr key={silence.id} className={`align-top ${stacked.row}`} data-testid={`silence-${silence.id}`}>
            <Cell className={`min-w-48 max-w-80 ${stacked.controls}`}>
              <Matches silence={silence} />
            </Cell>
            <Cell className={`text-[12px] ${stacked.cell}`} data-label="Until">
              <div>
                <div className="whitespace-nowrap">
                  <Moment value={silence.endedAt ?? silence.endsAt} />
                </div>
                <div className="text-muted" data-testid="silence-state">
                  {silence.active ? (
                    <>
                      ends in {formatAge(now, silence.endsAt)}
                      {' · '}matches {formatCount(silence.matchingFiring)} firing
                    </>
                  ) : silence.endedAt ? (
                    `ended early by ${silence.endedBy}`
                  ) : (
                    'ran out'
                  )}
                </div>
              </div>
            </Cell>
            <Cell className={`text-[12px] [overflow-wrap:anywhere] ${stacked.cell}`} data-label="By">
              <div>
                <div>{silence.createdBy}</div>
                <div className="whitespace-nowrap text-muted">
                  from <Moment value={silence.startsAt} />
                </div>
              </div>
            </Cell>
            <Cell className={`max-w-96 text-[12px] ${stacked.cell}`} data-label="Reason">
              <LongText text={silence.reason} lines={3} />
            </Cell>
            {mayEnd ? (
              <Cell className={`text-[12px] ${stacked.controls}`}>
                <EndSilenceButton
                  silenceId={silence.id}
                  describe={describeSilence(silence)}
                  matchingFiring={silence.matchingFiring}
                  headingId={headingId}
                />
              </Cell>
            ) : null}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** The Silences tab: the form (responders and admins), the silences in force, and the latest that are over. */
export function SilencesSection({
  silences,
  now,
  maySilence,
  readOnlyReason,
  prefill,
}: {
  silences: SilenceList;
  now: Date;
  maySilence: boolean;
  readOnlyReason?: string;
  prefill: SilencePrefill;
}) {
  return (
    <section aria-labelledby="silences-title" className="flex flex-col gap-5">
      <h2 id="silences-title" className="sr-only">
        Silences
      </h2>
      {maySilence ? (
        <SilenceForm prefill={prefill} />
      ) : (
        <p className="text-[13px] text-muted" data-testid="silences-read-only">
          Read only: responders and admins create and end silences ({readOnlyReason}).
        </p>
      )}
      <div>
        <h3 id="active-silences-title" tabIndex={-1} className="mb-2 text-[14px] font-medium">
          In force now
        </h3>
        {silences.active.length === 0 ? (
          <EmptyState title="No silence in force" testId="active-silences-empty">
            Every alert goes to its channels. Silence a rule&apos;s alerts here during planned work or while a known
            problem is being fixed, or use &ldquo;Silence like this…&rdquo; on an alert under History.
          </EmptyState>
        ) : (
          <SilencesTable
            silences={silences.active}
            now={now}
            caption="Silences in force now, the soonest to end first"
            testId="active-silences"
            mayEnd={maySilence}
            headingId="active-silences-title"
          />
        )}
      </div>
      <div>
        <div className="mb-2 flex flex-wrap items-baseline justify-between gap-2">
          <h3 className="text-[14px] font-medium">Ended</h3>
          <p className="text-[12px] text-muted">
            Showing {formatCount(silences.past.length)} of {formatCount(silences.totalPast)}, the latest first
          </p>
        </div>
        {silences.past.length === 0 ? (
          <p className="text-[13px] text-muted" data-testid="past-silences-empty">
            None yet: silences that run out or are ended early are listed here.
          </p>
        ) : (
          <SilencesTable
            silences={silences.past}
            now={now}
            caption="Silences that ran out or were ended early, the latest first"
            testId="past-silences"
            mayEnd={false}
            headingId="active-silences-title"
          />
        )}
      </div>
    </section>
  );
}
