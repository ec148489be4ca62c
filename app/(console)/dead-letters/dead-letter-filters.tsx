import Link from 'next/link';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import type { DeadLetterFilter } from '@/lib/core';
import { deadLettersFilterLabels, deadLettersHref } from '@/lib/console/filter-forms/dead-letters';
import { errorClasses } from '@/lib/db/schema/enums';
import { visibleText } from '@/lib/console/visible-text';

/**
 * The list's filters as a plain GET form: applying them starts at the first
 * page (the form carries no cursor), and every value stays in the URL.
 */
export function DeadLetterFilters({
  filter,
  choices,
  filtered,
}: {
  filter: DeadLetterFilter;
  choices: { queues: string[]; agents: string[]; steps: string[] };
  filtered: boolean;
}) {
  return (
    <form
      method="get"
      className="mb-4 flex flex-wrap items-end gap-3"
      aria-label="Filter dead letters"
      data-testid="dead-letter-filters"
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
      <Button type="submit" size="md">
        Apply
      </Button>
      {filtered ? (
        <Link href={deadLettersHref({})} className="text-[13px] text-accent hover:underline">
          Clear filters
        </Link>
      ) : null}
    </form>
  );
}
