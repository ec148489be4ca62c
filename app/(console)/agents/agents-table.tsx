import Link from 'next/link';
import { OwnerName } from '@/components/console/owner-name';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { VisibleText } from '@/components/ui/visible-text';
import { formatCount } from '@/lib/console/format';
import { headlineColumns } from '@/lib/console/step-columns';
import type { SortColumn } from '@/lib/filters/steps';
import type { AgentRow } from '@/lib/queries/agents-page';
import type { TimeWindowName } from '@holdfast/protocol/time-window';
import { FigureChange } from '../steps/figure-change';
import { agentHref } from './agent-href';

/** Each agent's figures are its steps' summed, shown as a step's headline shows them. */
const agentFigureColumns = headlineColumns;
/** Shown on a phone too: what an agent costs in retries. */
const onPhone = new Set<SortColumn>(['retryRate', 'retrySpendMicros']);

/** Every agent with its owner, its figures against the window before, and what of its work waits for a person. */
export function AgentsTable({ agents, window }: { agents: AgentRow[]; window: TimeWindowName }) {
  return (
    <Table data-testid="agents-table">
      <caption className="sr-only">Agents, most spend first</caption>
      <thead>
        <tr>
          <HeaderCell>Agent</HeaderCell>
          <HeaderCell numeric className="max-md:hidden">
            Steps
          </HeaderCell>
          {agentFigureColumns.map((column) => (
            <HeaderCell
              key={column.key}
              numeric
              title={column.help}
              className={onPhone.has(column.key) ? '' : 'max-md:hidden'}
            >
              {column.label}
            </HeaderCell>
          ))}
          <HeaderCell className="max-md:hidden">Waiting for a person</HeaderCell>
        </tr>
      </thead>
      <tbody>
        {agents.map((row) => (
          <tr key={row.agent} className="align-top hover:bg-surface-raised" data-testid={`agent-row-${row.agent}`}>
            <Cell className="min-w-[8rem] [overflow-wrap:anywhere]">
              <Link href={agentHref(row.agent, window)} className="font-mono text-[12px] text-accent hover:underline">
                <VisibleText text={row.agent} />
              </Link>
              <OwnerName owner={row.owner} className="block text-[11px] text-muted [overflow-wrap:anywhere]" />
            </Cell>
            <Cell numeric className="max-md:hidden" data-testid="steps">
              {formatCount(row.steps)}
            </Cell>
            {agentFigureColumns.map((column) => (
              <Cell
                key={column.key}
                numeric
                data-testid={column.key}
                className={onPhone.has(column.key) ? '' : 'max-md:hidden'}
              >
                {column.show({ ...row, step: '', failuresByClass: {}, latencyP50Ms: null, latencyP95Ms: null })}
                <FigureChange column={column.key} row={row} />
              </Cell>
            ))}
            <Cell className="text-[12px] max-md:hidden" data-testid="waiting">
              <Waiting agent={row.agent} waiting={row.waiting} />
            </Cell>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** What waits, each a link to the list that shows it; "nothing" when nothing does. */
export function Waiting({ agent, waiting }: { agent: string; waiting: AgentRow['waiting'] }) {
  const parts = [
    { count: waiting.openHolds, what: 'open hold', href: '/holds' },
    { count: waiting.deadLetters, what: 'dead letter', href: `/dead-letters?agent=${encodeURIComponent(agent)}` },
    { count: waiting.pauses, what: 'pause', href: '/pauses' },
    { count: waiting.openBreakers, what: 'open breaker', href: '/pauses#breakers-heading' },
  ].filter((part) => part.count > 0);
  if (parts.length === 0) return <span className="text-muted">nothing</span>;
  return (
    <span className="flex flex-col">
      {parts.map((part) => (
        <Link key={part.what} href={part.href} className="text-accent hover:underline">
          {formatCount(part.count)} {part.what}
          {part.count === 1 ? '' : 's'}
        </Link>
      ))}
    </span>
  );
}
