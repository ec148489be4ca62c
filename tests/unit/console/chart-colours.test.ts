import { describe, expect, it } from 'vitest';
import {
  assignSeriesColours,
  errorClassColours,
  seriesColour,
  seriesPalette,
  stableHash,
} from '@/components/charts/chart-colours';
import { errorClasses } from '@holdfast/protocol/enums';

describe('series colours', () => {
  it('gives a key the same colour every time, from its hash, whatever else is charted', () => {
    expect(seriesColour('outreach/draft')).toBe(seriesPalette[stableHash('outreach/draft') % seriesPalette.length]);
    const alone = assignSeriesColours(['outreach/draft']).get('outreach/draft');
    const withOthers = assignSeriesColours(['outreach/draft', 'payments/charge', 'research/search']).get(
      'outreach/draft',
    );
    expect(alone).toBe(seriesColour('outreach/draft'));
    expect(withOthers).toBe(alone);
  });

  it('is FNV-1a: known values, so the server and every browser agree', () => {
    expect(stableHash('')).toBe(0x811c9dc5);
    expect(stableHash('a')).toBe(0xe40c292c);
    expect(stableHash('foobar')).toBe(0xbf9cf968);
  });

  it('does not depend on rank: the same step keeps its colour when the order changes, unless it yields to a clash', () => {
    const keys = ['a/one', 'b/two', 'c/three', 'd/four', 'e/five'];
    const forward = assignSeriesColours(keys);
    const backward = assignSeriesColours([...keys].reverse());
    const clashFree = keys.filter(
      (key) => !keys.some((other) => other !== key && seriesColour(other) === seriesColour(key)),
    );
    expect(clashFree.length).toBeGreaterThan(0); // the check below is not vacuous
    for (const key of keys) {
      const own = seriesColour(key);
      const clashes = keys.some((other) => other !== key && seriesColour(other) === own);
      if (!clashes) {
        expect(forward.get(key)).toBe(own);
        expect(backward.get(key)).toBe(own);
      }
    }
  });

  it('never shows two series of one chart alike: a clash moves the later key to the next free colour', () => {
    // research/search and payments/charge hash to the same colour.
    expect(seriesColour('research/search')).toBe(seriesColour('payments/charge'));
    const colours = assignSeriesColours(['research/search', 'payments/charge']);
    expect(colours.get('research/search')).toBe(seriesColour('research/search'));
    expect(colours.get('payments/charge')).not.toBe(colours.get('research/search'));

    const many = Array.from({ length: seriesPalette.length }, (_, index) => `agent/step-${index}`);
    expect(new Set(assignSeriesColours(many).values()).size).toBe(seriesPalette.length);
  });

  it('reuses colours only when there are more series than colours', () => {
    const many = Array.from({ length: seriesPalette.length + 3 }, (_, index) => `agent/step-${index}`);
    const colours = assignSeriesColours(many);
    expect(colours.size).toBe(many.length);
    for (const colour of colours.values()) expect(seriesPalette).toContain(colour);
  });

  it('gives each error class a colour of its own', () => {
    const colours = errorClasses.map((errorClass) => errorClassColours[errorClass]);
    expect(new Set(colours).size).toBe(errorClasses.length);
  });
});
