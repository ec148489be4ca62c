import { describe, expect, it } from 'vitest';
import { monthlyProjection, resolveTimeWindow } from '../../../lib/time-window';

describe('resolveTimeWindow', () => {
  const now = new Date('2026-11-30T12:00:00.000Z');

  it('ends at now and reaches back the window length', () => {
    expect(resolveTimeWindow('24h', now)).toEqual({ from: new Date('2026-11-29T12:00:00.000Z'), to: now });
    expect(resolveTimeWindow('7d', now).from).toEqual(new Date('2026-11-23T12:00:00.000Z'));
    expect(resolveTimeWindow('30d', now).from).toEqual(new Date('2026-10-31T12:00:00.000Z'));
  });
});

describe('monthlyProjection', () => {
  it("projects a window's sum over 30 days at the window's rate", () => {
    expect(monthlyProjection(10, '1h')).toBe(7_200);
    expect(monthlyProjection(10, '24h')).toBe(300);
    expect(monthlyProjection(7, '7d')).toBe(30);
    expect(monthlyProjection(10, '30d')).toBe(10);
  });
});
