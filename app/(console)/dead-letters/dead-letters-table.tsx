'use client';

import Link from 'next/link';
import { useState } from 'react';
import { LongText } from '@/components/ui/long-text';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { Age } from '@/components/ui/time';
import { formatCount, formatMicros } from '@/lib/console/format';
import { focusAfterDialogs } from '@/components/console/focus-after-action';
import { DeadLetterActions } from './dead-letter-actions';
import { SelectionBar } from './selection-bar';
import { VisibleText } from '@/components/ui/visible-text';

/** What a row shows: a pending dead letter, with the brakes that refuse its redrive now, said in words. */
export interface DeadLetterRowData {
  id: number;
  taskId: string;
  queue: string;
  agent: string;
  step: string;
  reason: string;
  errorClass: string | null;
  lastError: string | null;
  attempts: number;
  spendMicros: number;
  createdAt: Date;
  brakedBy?: string;
}

/** Below 768 px each row is a card: cells stack, and each says what it is. */
const stackedCell = 'max-md:block max-md:border-0 max-md:px-0 max-md:py-0.5';
function PhoneLabel({ children }: { children: string }) {
  return <span className="text-muted md:hidden">{children}: </span>;
}

/**
 * One page of pending dead letters, with ticks for acting on a selection.
 * After an action the row leaves the list, so focus moves to the next row's
 * reason (or the previous row's, or the list's heading when none is left).
 */
export function DeadLettersTable({
  rows,
  now,
  headingId,
  refusal,
  canOverride,
}: {
  rows: DeadLetterRowData[];
  now: Date;
  headingId: string;
  /** Why this person may not act at all (a viewer); no ticks or actions then. */
  refusal?: string;
  canOverride: boolean;
}) {
  const [ticked, setTicked] = useState<Set<number>>(new Set());
  const pageIds = rows.map((row) => row.id);
  // Only rows still on the page count as selected: a refresh may have taken some away.
  const selected = pageIds.filter((id) => ticked.has(id));

  const tick = (id: number, on: boolean) =>
    setTicked((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  return (
    <>
      {refusal ? null : (
        <SelectionBar
          selected={rows.filter((row) => selected.includes(row.id))}
          pageSize={rows.length}
          onSelectAll={(on) => setTicked(on ? new Set(pageIds) : new Set())}
          onFinished={(settled) => {
            setTicked((current) => new Set([...current].filter((id) => !settled.includes(id))));
            // Several rows leave at once: the list's heading is the one place sure to stay.
            focusAfterDialogs(() => document.getElementById(headingId));
          }}
        />
      )}
      <Table data-testid="dead-letters-table" className="max-md:block">
        <caption className="sr-only">Pending dead letters, oldest first</caption>
        <thead className="max-md:hidden">
          <tr>
            {refusal ? null : (
              <HeaderCell className="w-8">
                <span className="sr-only">Selected</span>
              </HeaderCell>
            )}
            <HeaderCell>Dead letter</HeaderCell>
            <HeaderCell>Agent / step</HeaderCell>
            <HeaderCell>Error</HeaderCell>
            <HeaderCell numeric>Attempts</HeaderCell>
            <HeaderCell numeric>Spend so far</HeaderCell>
            <HeaderCell>Waiting</HeaderCell>
            <HeaderCell>Action</HeaderCell>
          </tr>
        </thead>
        <tbody className="max-md:block">
          {rows.map((letter) => (
            <tr
              key={letter.id}
              data-testid={`dead-letter-row-${letter.id}`}
              data-row={letter.id}
              className="align-top max-md:block max-md:border-b max-md:border-line max-md:px-3 max-md:py-2"
            >
              {refusal ? null : (
                <Cell className={`${stackedCell} max-md:float-right`}>
                  <input
                    type="checkbox"
                    aria-label={`Select dead letter ${letter.id}`}
                    checked={ticked.has(letter.id)}
                    onChange={(event) => tick(letter.id, event.target.checked)}
                    data-testid={`select-dead-letter-${letter.id}`}
                  />
                </Cell>
              )}
              <Cell className={`${stackedCell} whitespace-nowrap`}>
                <Link
                  href={`/dead-letters/${letter.id}`}
                  className="font-medium text-accent hover:underline"
                  data-testid={`dead-letter-link-${letter.id}`}
                >
                  Dead letter {letter.id}
                </Link>
                <span className="block font-mono text-[12px] text-muted max-md:inline max-md:before:content-['_·_']">
                  <VisibleText text={letter.queue} />
                </span>
              </Cell>
              <Cell className={`${stackedCell} font-mono text-[12px] [overflow-wrap:anywhere]`}>
                <VisibleText text={letter.agent} />/<VisibleText text={letter.step} />
                <br className="max-md:hidden" />{' '}
                <Link href={`/tasks/${encodeURIComponent(letter.taskId)}`} className="text-accent hover:underline">
                  task:
                  <VisibleText text={letter.taskId} />
                </Link>
              </Cell>
              <Cell className={`${stackedCell} max-w-md`}>
                <span className="block font-mono text-[12px]">{letter.errorClass ?? letter.reason}</span>
                {letter.lastError ? (
                  <LongText text={letter.lastError} testId={`dead-letter-error-${letter.id}`} />
                ) : null}
              </Cell>
              <Cell numeric className={`${stackedCell} max-md:text-left`}>
                <PhoneLabel>Attempts</PhoneLabel>
                {formatCount(letter.attempts)}
              </Cell>
              <Cell numeric className={`${stackedCell} max-md:text-left`}>
                <PhoneLabel>Spend so far</PhoneLabel>
                {formatMicros(letter.spendMicros)}
              </Cell>
              <Cell className={`${stackedCell} whitespace-nowrap text-muted`}>
                <PhoneLabel>Waiting</PhoneLabel>
                <Age since={letter.createdAt} now={now} />
              </Cell>
              <Cell className={`${stackedCell} min-w-80 max-md:min-w-0 max-md:pt-2`}>
                <DeadLetterActions
                  deadLetterId={letter.id}
                  refusal={refusal}
                  brakedBy={letter.brakedBy}
                  canOverride={canOverride}
                  headingId={headingId}
                />
              </Cell>
            </tr>
          ))}
        </tbody>
      </Table>
    </>
  );
}
