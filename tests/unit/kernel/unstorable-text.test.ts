import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { parseSearchInput } from '../../../app/(console)/search/search-input';
import { decodeRouteParam } from '../../../packages/engine/src/core/kernel/console-text-input';
import { auditFilter } from '../../../lib/filters/audit';
import { holdsFilter } from '../../../lib/filters/holds';
import { parseStepsView } from '../../../lib/filters/steps';
import { readFilter } from '../../../lib/filters/read-filter';
import { InvalidInputError } from '@holdfast/protocol/errors';
import { findUnstorableText, parseInput } from '@holdfast/protocol/validation';
import { hasLoneSurrogate } from '@holdfast/protocol/well-formed-text';

/** A lone UTF-16 surrogate is refused at every input the console and the library read (a 500 from PostgreSQL before). */
const LONE = '\ud800';

describe('lone surrogates', () => {
  it('are told apart from paired ones (real characters)', () => {
    expect(hasLoneSurrogate(LONE)).toBe(true);
    expect(hasLoneSurrogate('a\udc00')).toBe(true);
    expect(hasLoneSurrogate('\ud83d\ude00 ok')).toBe(false);
    expect(hasLoneSurrogate('plain')).toBe(false);
  });

  it('are refused by parseInput naming the field, nested ones and keys too, whatever the schema allows', () => {
    const anything = z.object({ title: z.string(), payload: z.unknown() });
    const refusal = (() => {
      try {
        parseInput(anything, { title: `x${LONE}`, payload: { items: ['fine', LONE] } });
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(InvalidInputError);
    expect(Object.keys((refusal as InvalidInputError).fieldErrors).sort()).toEqual(['payload.items.1', 'title']);
    expect(findUnstorableText({ [`k${LONE}`]: 'v' })).toEqual({ 'k\\ud800': [expect.stringContaining('surrogate')] });
  });

  it('in a console filter: the schema refuses it, and the page ignores it with a notice that does not echo it', () => {
    for (const field of ['actor', 'action', 'targetType', 'targetId'])
      expect(auditFilter.safeParse({ [field]: LONE }).success, field).toBe(false);
    const { filter, notices } = readFilter(holdsFilter, { owner: `team:${LONE}` });
    expect(filter.owner).toBeUndefined();
    expect(notices).toEqual(['Ignored owner: must not contain a lone UTF-16 surrogate']);
    const view = parseStepsView({ q: LONE }, new Date('2026-12-01T12:00:00Z'));
    expect(view.search).toBeUndefined();
    expect(view.notices).toEqual(['Ignored q: must not contain a lone UTF-16 surrogate']);
  });

  it('in the search box and in route parameters', () => {
    expect(parseSearchInput(`task-${LONE}`)).toMatchObject({ ok: false });
    expect(decodeRouteParam(LONE)).toBeUndefined();
    expect(decodeRouteParam('refund-2291')).toBe('refund-2291');
  });
});
