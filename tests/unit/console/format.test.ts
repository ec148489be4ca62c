import { describe, expect, it } from 'vitest';
import { formatCount, formatMicros, formatPercent } from '../../../lib/console/format';

describe('formatting', () => {
  it('shows cents for a dollar or more and four decimals below', () => {
    expect(formatMicros(0)).toBe('$0.00');
    expect(formatMicros(1_234_567)).toBe('$1.23');
    expect(formatMicros(12_345)).toBe('$0.0123');
    expect(formatMicros(50)).toBe('$0.0001');
    expect(formatMicros(2_500_000_000)).toBe('$2,500.00');
  });

  it('shows shares as percentages with one decimal', () => {
    expect(formatPercent(0)).toBe('0.0%');
    expect(formatPercent(0.25)).toBe('25.0%');
    expect(formatPercent(1 / 3)).toBe('33.3%');
  });

  it('groups thousands in counts', () => {
    expect(formatCount(1234567)).toBe('1,234,567');
  });
});
