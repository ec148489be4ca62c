import Form from 'next/form';
import { SegmentedLinks } from '@/components/ui/segmented-links';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { stepsViewHref } from '@/lib/console/filter-forms/steps';
import type { StepsView } from '@/lib/filters/steps';
import { attemptSourceLabels } from '@/lib/console/labels/sources';
import { attemptSources } from '@holdfast/protocol/enums';
import { timeWindowLabel, timeWindowName } from '@holdfast/protocol/time-window';
import { StepsWindowFields } from './steps-window-fields';
import { visibleText } from '@/lib/console/visible-text';

/**
 * Window links plus a GET form, so every choice lands in the URL. The form is
 * keyed on the view it shows: its fields are uncontrolled, and without the key
 * React would keep the old values when a window link or Back changes the URL
 * (the window select stayed on 24h after 7d was clicked, and Apply sent it).
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
        <Field label="Agent">
          <Select name="agent" defaultValue={view.agent ?? ''} size="sm">
            <option value="">All agents</option>
            {agents.map((agent) => (
              <option key={agent} value={agent}>
                {visibleText(agent)}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="Owner">
          <Select name="owner" defaultValue={view.owner ?? ''} size="sm">
            <option value="">Anyone</option>
            <option value="mine">Mine (my teams and me)</option>
            {owners.map((owner) => (
              <option key={owner} value={owner}>
                {visibleText(owner)}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="Arrived through">
          <Select name="source" defaultValue={view.source ?? ''} size="sm">
            <option value="">Any way</option>
            {attemptSources.map((source) => (
              <option key={source} value={source}>
                {attemptSourceLabels[source]}
              </option>
            ))}
          </Select>
        </Field>
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
