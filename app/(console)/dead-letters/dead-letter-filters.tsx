import { ListFilters } from '@/components/console/list-page';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import type { DeadLetterFilter } from '@holdfast/engine/core';
import { deadLettersFilterLabels, deadLettersHref } from '@/lib/console/filter-forms/dead-letters';
import { errorClasses } from '@holdfast/protocol/enums';
import { visibleText } from '@/lib/console/visible-text';

/** The Dead letters list's filters (a GET form: every value in the URL, applying starts at the first page). */
export function DeadLetterFilters({
  filter,
  choices,
  filtered,
  group,
}: {
  filter: DeadLetterFilter;
  choices: { queues: string[]; agents: string[]; steps: string[] };
  filtered: boolean;
  /** The error group the list is narrowed to (from the Errors page), when it is. */
  group?: { agent: string; step: string; pattern: string };
}) {
  return (
    <ListFilters
      label="Filter dead letters"
      testId="dead-letter-filters"
      clearHref={filtered ? deadLettersHref({}) : undefined}
    >
      {(
        [
          ['queue', choices.queues],
          ['agent', choices.agents],
          ['step', choices.steps],
        ] as const
      ).map(([name, values]) => (
        <Field key={name} label={deadLettersFilterLabels[name]}>
          <Select name={name} defaultValue={filter[name] ?? ''}>
            <option value="">Any</option>
            {values.map((value) => (
              // An option holds text only: its bidi controls are shown as markers, and its value stays as stored.
              <option key={value} value={value}>
                {visibleText(value)}
              </option>
            ))}
          </Select>
        </Field>
      ))}
      <Field label={deadLettersFilterLabels.errorClass}>
        <Select name="errorClass" defaultValue={filter.errorClass ?? ''}>
          <option value="">Any</option>
          {errorClasses.map((value) => (
            <option key={value}>{value}</option>
          ))}
        </Select>
      </Field>
      {filter.group ? (
        <div className="grid max-w-md gap-1 text-[12px]" data-testid="dead-letter-group-filter">
          <span className="text-muted">{deadLettersFilterLabels.group}</span>
          <span className="flex items-center gap-2">
            <input type="hidden" name="group" value={filter.group} />
            <code className="[overflow-wrap:anywhere]">
              {group
                ? `${visibleText(group.agent)}/${visibleText(group.step)}: ${visibleText(group.pattern)}`
                : filter.group}
            </code>
            <a href={deadLettersHref({ ...filter, group: undefined })} className="text-accent hover:underline">
              remove
            </a>
          </span>
        </div>
      ) : null}
      <Field label={deadLettersFilterLabels.search}>
        <Input type="search" name="search" defaultValue={filter.search ?? ''} />
      </Field>
      <Field label={deadLettersFilterLabels.minAttempts}>
        <Input type="number" name="minAttempts" min={0} defaultValue={filter.minAttempts ?? ''} className="w-24" />
      </Field>
      <Field label={deadLettersFilterLabels.minSpendUsd}>
        <Input
          type="number"
          name="minSpendUsd"
          min={0}
          step="any"
          defaultValue={filter.minSpendMicros === undefined ? '' : filter.minSpendMicros / 1_000_000}
          className="w-28"
        />
      </Field>
      <Field label={deadLettersFilterLabels.minAgeHours}>
        <Input
          type="number"
          name="minAgeHours"
          min={0}
          step="any"
          defaultValue={filter.minAgeHours ?? ''}
          className="w-28"
        />
      </Field>
    </ListFilters>
  );
}
