import { SegmentedLinks } from '@/components/ui/segmented-links';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { stepsViewHref, type StepsView } from '@/lib/console/filters/steps';
import { timeWindowLabel, timeWindowName } from '@/lib/time-window';

const localInput = (date: Date) => date.toISOString().slice(0, 16);

/** Window links plus a plain GET form, so every choice lands in the URL. */
export function StepsFilters({ view, agents }: { view: StepsView; agents: string[] }) {
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
      <form
        method="get"
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
                {agent}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="Search">
          <Input type="search" name="q" defaultValue={view.search} placeholder="agent or step" size="sm" />
        </Field>
        <Field label="Window">
          <Select name="window" defaultValue={view.window} size="sm">
            {[...timeWindowName.options, 'custom'].map((name) => (
              <option key={name} value={name}>
                {name === 'custom' ? 'custom (from – to, UTC)' : name}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="From">
          <Input type="datetime-local" name="from" defaultValue={localInput(view.range.from)} size="sm" />
        </Field>
        <Field label="To">
          <Input type="datetime-local" name="to" defaultValue={localInput(view.range.to)} size="sm" />
        </Field>
        <Button type="submit" variant="primary">
          Apply
        </Button>
      </form>
    </div>
  );
}
