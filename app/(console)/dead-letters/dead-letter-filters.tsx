import { ChoiceFilter, LeastValueFilter } from '@/components/console/filter-fields';
import { ListFilters } from '@/components/console/list-page';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
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
      <ChoiceFilter label={deadLettersFilterLabels.queue} name="queue" value={filter.queue} choices={choices.queues} />
      <ChoiceFilter label={deadLettersFilterLabels.agent} name="agent" value={filter.agent} choices={choices.agents} />
      <ChoiceFilter label={deadLettersFilterLabels.step} name="step" value={filter.step} choices={choices.steps} />
      <ChoiceFilter
        label={deadLettersFilterLabels.errorClass}
        name="errorClass"
        value={filter.errorClass}
        choices={errorClasses}
      />
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
      <LeastValueFilter
        label={deadLettersFilterLabels.minAttempts}
        name="minAttempts"
        value={filter.minAttempts}
        wholeNumbers
        className="w-24"
      />
      <LeastValueFilter
        label={deadLettersFilterLabels.minSpendUsd}
        name="minSpendUsd"
        value={filter.minSpendMicros === undefined ? undefined : filter.minSpendMicros / 1_000_000}
      />
      <LeastValueFilter label={deadLettersFilterLabels.minAgeHours} name="minAgeHours" value={filter.minAgeHours} />
    </ListFilters>
  );
}
