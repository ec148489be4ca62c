import { describe, expect, it } from 'vitest';
import { readStepsPage, STEPS_PAGE_SIZE } from '@/lib/filters/steps';

describe('the Steps page number', () => {
  const total = 2 * STEPS_PAGE_SIZE + 1; // three pages

  it('reads a page that exists', () => {
    expect(readStepsPage('2', total)).toBe(2);
    expect(readStepsPage(['3', '1'], total)).toBe(3);
  });

  it('keeps a page past the end to the last one, and anything else to the first', () => {
    expect(readStepsPage('9', total)).toBe(3);
    for (const bad of [undefined, '', '0', '-1', '1.5', 'two']) expect(readStepsPage(bad, total)).toBe(1);
    expect(readStepsPage('4', 0)).toBe(1);
  });
});
