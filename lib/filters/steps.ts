import { z } from 'zod';
import {
  attemptSources,
  type AttemptSource,
  type StepCostSourceName,
  stepCostSourceNames,
} from '@holdfast/protocol/enums';
import { resolveTimeWindow, timeWindowName, type TimeRange } from '@holdfast/protocol/time-window';
import { firstValue, readFilter, type SearchParams } from './read-filter';

/** The Steps page's state, all of it in the URL so a view can be shared in an incident channel. */
export const sortableColumns = [
  'agent',
  'step',
  'attempts',
  'retries',
  'retryRate',
  'firstTrySuccess',
  'totalSpendMicros',
  'retrySpendMicros',
  'retryShareOfSpend',
  'failures',
  'failedSpendMicros',
  /** Retry spend minus the previous window's: which step's retries got costlier. */
  'retrySpendChangeMicros',
  'latencyP50Ms',
  'latencyP95Ms',
] as const;
export type SortColumn = (typeof sortableColumns)[number];

const windowChoice = z.enum([...timeWindowName.options, 'custom']);
const MAX_CUSTOM_RANGE_MS = 90 * 24 * 3_600_000;

export interface StepsView {
  window: z.infer<typeof windowChoice>;
  range: TimeRange;
  agent?: string;
  search?: string;
  /** Only steps whose attempts reached Holdfast this way (step_sources). */
  source?: AttemptSource;
  /** Only steps some of whose kept attempts were costed this way (step_cost_sources). */
  cost?: StepCostSourceName;
  /** Only steps this owner answers for (`team:<name>`, `person:<email>`), or `mine`: the signed-in person's. */
  owner?: string;
  sort: SortColumn;
  dir: 'asc' | 'desc';
  /** Parameters that were ignored, said plainly on the page. */
  notices: string[];
}

const optionalName = z
  .string()
  .trim()
  .max(100)
  .optional()
  .transform((value) => value || undefined);

/** The parameters read by readFilter; a custom window's `from` and `to` are read with the window. */
export const stepsFilter = z.object({
  window: windowChoice.default('24h'),
  agent: optionalName,
  q: optionalName,
  source: z.enum(attemptSources).optional(),
  cost: z.enum(stepCostSourceNames).optional(),
  owner: z
    .string()
    .trim()
    .max(200)
    .regex(/^(mine|(team|person):\S.*)$/, 'must be mine, team:<name> or person:<email>')
    .optional(),
  sort: z.enum(sortableColumns).default('retrySpendMicros'),
  dir: z.enum(['asc', 'desc']).default('desc'),
});

/** Reads the view from URL parameters; a bad parameter falls back to its default with a notice. */
export function parseStepsView(params: SearchParams, now: Date): StepsView {
  const { filter, notices } = readFilter(stepsFilter, params);
  let window = filter.window;
  let range = resolveTimeWindow(window === 'custom' ? '24h' : window, now);
  if (window === 'custom') {
    const from = readUtcMoment(firstValue(params.from));
    const to = readUtcMoment(firstValue(params.to));
    const valid =
      !Number.isNaN(from.getTime()) &&
      !Number.isNaN(to.getTime()) &&
      from < to &&
      to.getTime() - from.getTime() <= MAX_CUSTOM_RANGE_MS;
    if (valid) range = { from, to };
    else {
      // First, where it was said before: a window that is custom had no notice of its own.
      notices.unshift('A custom window needs a start before its end, at most 90 days apart; showing the last 24 hours');
      window = '24h';
    }
  }
  return {
    window,
    range,
    agent: filter.agent,
    search: filter.q,
    source: filter.source,
    cost: filter.cost,
    owner: filter.owner,
    sort: filter.sort,
    dir: filter.dir,
    notices,
  };
}

/**
 * A moment from the URL. The form's From and To fields say UTC and send no zone ("2026-12-03 10:05", or with a T):
 * read so, not in the server's own zone. A value with a zone (a chart's zoom sends ISO with Z) keeps it.
 */
function readUtcMoment(raw: string | undefined): Date {
  if (raw === undefined) return new Date(Number.NaN);
  const trimmed = raw.trim();
  const zoneless = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(:\d{2}(\.\d+)?)?)$/.exec(trimmed);
  return new Date(zoneless ? `${zoneless[1]}T${zoneless[2]}Z` : trimmed);
}

/**
 * Steps shown on one page. Every step's figures are still read (a sort needs
 * them all); only the rows rendered are limited, since rendering a table of
 * thousands of steps cost seconds and megabytes of HTML per request.
 */
export const STEPS_PAGE_SIZE = 50;

/** The page asked for in `?page=`, kept within the pages there are (a bad value means the first). */
export function readStepsPage(raw: string | string[] | undefined, total: number): number {
  const pages = Math.max(1, Math.ceil(total / STEPS_PAGE_SIZE));
  const asked = Number(Array.isArray(raw) ? raw[0] : raw);
  return Number.isInteger(asked) && asked >= 1 ? Math.min(asked, pages) : 1;
}
