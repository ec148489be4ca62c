import Form from 'next/form';
import { SegmentedLinks } from '@/components/ui/segmented-links';
import { Button } from '@/components/ui/button';
import { ChoiceFilter } from '@/components/console/filter-fields';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { stepsViewHref } from '@/lib/console/filter-forms/steps';
import type { StepsView } from '@/lib/filters/steps';
import { attemptSourceLabels, costSourceLabel } from '@/lib/console/labels/sources';
import { type AttemptSource, attemptSources, type CostSource, stepCostSourceNames } from '@holdfast/protocol/enums';
import { timeWindowLabel, timeWindowName } from '@holdfast/protocol/time-window';
import { StepsWindowFields } from './steps-window-fields';

/**
 * Window links (the one window control; From and To in the form make a custom
 * window) plus a GET form, so every choice lands in the URL. The form is
 * keyed on the view it shows: its fields are uncontrolled, and without the key
 * React would keep the old values when a window link or Back changes the URL
 * (the form's window stayed on 24h after 7d was clicked, and Apply sent it).
 * next/form navigates on the client, so Back and Forward restore the list and
 * the fields together.
 */
export function StepsFilters({ view, agents, owners }: { view: StepsView; agents: string[]; owners: string[] }) {
  return (
    <div className="mb-4 flex flex-wrap items-end gap-4">
      <SegmentedLinks
        label="Time window"
        links={timeWindowName.options.map((name) => ({
          href: stepsViewHref(view, { window: name, from: undefined, to: undefined }),
          label: name,
          title: timeWindowLabel[name],
          active: view.window === name,
        }))}
      />
      <Form
        key={stepsViewHref(view, {})}
        action="/steps"
        className="flex flex-wrap items-end gap-2 text-[12px] text-muted"
        data-testid="steps-filters"
      >
        <input type="hidden" name="sort" value={view.sort} />
        <input type="hidden" name="dir" value={view.dir} />
        <ChoiceFilter label="Agent" name="agent" value={view.agent} choices={agents} anyLabel="All agents" size="sm" />
        <ChoiceFilter
          label="Owner"
          name="owner"
          value={view.owner}
          choices={owners}
          anyLabel="Anyone"
          special={[{ value: 'mine', label: 'Mine (my teams and me)' }]}
          size="sm"
        />
        <ChoiceFilter
          label="Arrived through"
          name="source"
          value={view.source}
          choices={attemptSources}
          anyLabel="Any way"
          labelOf={(source) => attemptSourceLabels[source as AttemptSource]}
          size="sm"
        />
        <ChoiceFilter
          label="Cost source"
          name="cost"
          value={view.cost}
          choices={stepCostSourceNames}
          anyLabel="Any"
          labelOf={(source) => costSourceLabel(source === 'unrecorded' ? null : (source as CostSource))}
          size="sm"
        />
        <Field label="Search">
          <Input type="search" name="q" defaultValue={view.search} placeholder="agent or step" size="sm" />
        </Field>
        <StepsWindowFields window={view.window} from={view.range.from.toISOString()} to={view.range.to.toISOString()} />
        <Button type="submit" variant="primary">
          Apply
        </Button>
      </Form>
    </div>
  );
}
