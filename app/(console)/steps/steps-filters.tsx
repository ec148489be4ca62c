import { SegmentedLinks } from '@/components/ui/segmented-links';
import { stepsViewHref, type StepsView } from '@/lib/console/filters/steps';
import { timeWindowLabel, timeWindowName } from '@/lib/time-window';

const inputClass = 'rounded border border-line bg-surface px-2 py-1 text-[12px]';
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
        <label className="flex flex-col gap-1">
          Agent
          <select name="agent" defaultValue={view.agent ?? ''} className={inputClass}>
            <option value="">All agents</option>
            {agents.map((agent) => (
              <option key={agent} value={agent}>
                {agent}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1">
          Search
          <input type="search" name="q" defaultValue={view.search} placeholder="agent or step" className={inputClass} />
        </label>
        <label className="flex flex-col gap-1">
          Window
          <select name="window" defaultValue={view.window} className={inputClass}>
            {[...timeWindowName.options, 'custom'].map((name) => (
              <option key={name} value={name}>
                {name === 'custom' ? 'custom (from – to, UTC)' : name}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1">
          From
          <input type="datetime-local" name="from" defaultValue={localInput(view.range.from)} className={inputClass} />
        </label>
        <label className="flex flex-col gap-1">
          To
          <input type="datetime-local" name="to" defaultValue={localInput(view.range.to)} className={inputClass} />
        </label>
        <button type="submit" className="rounded bg-accent px-3 py-1 font-medium text-on-accent">
          Apply
        </button>
      </form>
    </div>
  );
}
