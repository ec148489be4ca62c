import { Fragment, type ReactNode } from 'react';
import { EmptyState } from '@/components/ui/empty-state';
import { stacked } from '@/components/ui/stacked-rows';
import { ActionsHeaderCell, Cell, HeaderCell, Table } from '@/components/ui/table';
import { VisibleText } from '@/components/ui/visible-text';
import type { ErrorClassRuleInput } from '@holdfast/engine/traces';

/** The rule table, first match first; an editor passes each row's controls. */
export function ErrorRulesTable({
  rules,
  controls,
}: {
  rules: readonly ErrorClassRuleInput[];
  controls?: (index: number) => ReactNode;
}) {
  if (rules.length === 0)
    return (
      <EmptyState title="No error class rules" testId="error-rules-empty">
        Every failed span is then <code>unknown</code>, which is not retried.
        {controls ? ' Add a rule below, or reset to the defaults.' : ' An admin can add rules.'}
      </EmptyState>
    );
  return (
    <Table data-testid="error-rules-table" className={stacked.table}>
      <caption className="sr-only">Error class rules, in the order they are tried</caption>
      <thead className={stacked.head}>
        <tr>
          <HeaderCell numeric className="w-10">
            #
          </HeaderCell>
          <HeaderCell>Condition</HeaderCell>
          <HeaderCell>Class</HeaderCell>
          {controls ? <ActionsHeaderCell /> : null}
        </tr>
      </thead>
      <tbody className={stacked.body}>
        {rules.map((rule, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a rule is its place in the table; two rules may be alike.
          <tr key={index} data-testid={`error-rule-${index + 1}`} className={`align-top ${stacked.row}`}>
            <Cell numeric className={stacked.cell} data-label="Rule">
              {index + 1}
            </Cell>
            <Cell
              className={`min-w-40 text-[12px] ${stacked.cell}`}
              data-label="Condition"
              data-testid="rule-condition"
            >
              <RuleCondition rule={rule} />
            </Cell>
            <Cell className={`font-mono text-[12px] ${stacked.cell}`} data-label="Class" data-testid="rule-class">
              {rule.errorClass}
            </Cell>
            {controls ? <Cell className={stacked.controls}>{controls(index)}</Cell> : null}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** "HTTP 429", "HTTP 500–599", or error.type contains the words, each shown whole (spaces included). */
export function RuleCondition({ rule }: { rule: ErrorClassRuleInput }) {
  if (rule.when === 'status')
    return <span className="font-mono">HTTP {rule.from === rule.to ? rule.from : `${rule.from}–${rule.to}`}</span>;
  // Spaces between the parts and a hidden "or" between the words, so the cell reads as a sentence.
  return (
    <span className="flex min-w-0 flex-wrap items-baseline gap-1">
      <span className="text-muted">
        <code>error.type</code> contains
      </span>{' '}
      {rule.words.map((word, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a rule's words may repeat, and a rendered rule never reorders them.
        <Fragment key={index}>
          <code className="min-w-0 rounded border border-line bg-surface-raised px-1 [overflow-wrap:anywhere]">
            {index > 0 ? <span className="sr-only">or </span> : null}
            <VisibleText text={word} />
          </code>{' '}
        </Fragment>
      ))}
    </span>
  );
}
