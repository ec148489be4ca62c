import type { z } from 'zod';
import { unusableTextProblem } from '@holdfast/engine/core';

/** A page's `searchParams`, as Next hands them over. */
export type SearchParams = Record<string, string | string[] | undefined>;

export interface ReadFilterResult<Output> {
  filter: Output;
  /** Parameters that were ignored, said plainly on the page (one sentence each, no full stop). */
  notices: string[];
  /** The parameters kept, as they were written: a link or an export can carry them on unchanged. */
  accepted: Record<string, string>;
}

/** The first value of a repeated parameter; blank means absent. */
export function firstValue(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === '' ? undefined : first;
}

/**
 * Reads a filter from URL parameters, one field at a time: a bad parameter falls
 * back to its default with a notice, the others still apply. Parameters the
 * schema does not name are left alone (another part of the page may read them).
 * A NUL or a lone surrogate is refused before the field's own rules and not echoed in the notice.
 */
export function readFilter<Shape extends z.core.$ZodShape, Output>(
  schema: z.ZodType<Output> & { shape: Shape },
  params: SearchParams,
): ReadFilterResult<Output> {
  const notices: string[] = [];
  const accepted: Record<string, string> = {};
  for (const [name, field] of Object.entries(schema.shape) as [string, z.ZodType][]) {
    const raw = firstValue(params[name]);
    if (raw === undefined) continue;
    const problem = unusableTextProblem(raw);
    if (problem) {
      notices.push(`Ignored ${name}: ${problem}`);
      continue;
    }
    if (field.safeParse(raw).success) accepted[name] = raw;
    else notices.push(`Ignored ${name}=“${raw}”`);
  }
  const parsed = schema.safeParse(accepted);
  if (parsed.success) return { filter: parsed.data, notices, accepted };
  // Only a rule across fields can get here; none of the console's filters has one today.
  return { filter: schema.parse({}), notices: [...notices, 'Filters ignored: they do not fit together'], accepted: {} };
}
