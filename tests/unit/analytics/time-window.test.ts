import { describe, expect, it } from 'vitest';
import { dataSpanNotice } from '../../../lib/console/data-span';
import {
  bucketFor,
  bucketStarts,
  monthlyProjection,
  resolveTimeWindow,
  withEveryBucket,
} from '@holdfast/protocol/time-window';

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

describe('bucketFor', () => {
  const hours = (count: number) => count * 3_600_000;
  const ending = (length: number) => ({
    from: new Date(Date.UTC(2026, 10, 30) - length),
    to: new Date(Date.UTC(2026, 10, 30)),
  });

  it('draws an hour in five minutes, a day in quarter hours, longer windows in days', () => {
    expect(bucketFor(ending(hours(1)))).toBe('5min');
    // One step's page asks for minutes: an hour or less in single minutes, longer as before.
    expect(bucketFor(ending(hours(1)), undefined, { minutes: true })).toBe('1min');
    expect(bucketFor(ending(hours(2)), undefined, { minutes: true })).toBe('5min');
    expect(bucketFor(ending(hours(2)))).toBe('5min');
    expect(bucketFor(ending(hours(2) + 1))).toBe('15min');
    expect(bucketFor(ending(hours(48)))).toBe('15min');
    expect(bucketFor(ending(hours(48) + 1))).toBe('day');
  });

  it('draws in hours a range that begins before the minutes are kept', () => {
    const day = ending(hours(24));
    expect(bucketFor(day, new Date(day.from.getTime() + 1))).toBe('hour');
    expect(bucketFor(day, day.from)).toBe('15min');
    const hour = ending(hours(1));
    expect(bucketFor(hour, new Date(hour.to.getTime()))).toBe('hour');
  });
});

describe('withEveryBucket', () => {
  const range = { from: new Date('2026-11-30T10:03:00Z'), to: new Date('2026-11-30T10:20:00Z') };

  it('gives every bucket of the range a point, a quiet one the empty point', () => {
    expect(bucketStarts(range, '5min')).toEqual([
      '2026-11-30T10:00:00Z',
      '2026-11-30T10:05:00Z',
      '2026-11-30T10:10:00Z',
      '2026-11-30T10:15:00Z',
    ]);
    const filled = withEveryBucket([{ bucket: '2026-11-30T10:10:00Z', value: 7 }], range, '5min', (bucket) => ({
      bucket,
      value: 0,
    }));
    expect(filled.map((point) => point.value)).toEqual([0, 0, 7, 0]);
  });

  it('keeps a point outside the buckets rather than dropping what was read', () => {
    const stray = { bucket: '2026-11-30T11:00:00Z', value: 3 };
    const filled = withEveryBucket([stray], range, '15min', (bucket) => ({ bucket, value: 0 }));
    expect(filled.map((point) => point.bucket)).toEqual(['2026-11-30T10:00:00Z', '2026-11-30T10:15:00Z', stray.bucket]);
  });
});

describe('dataSpanNotice', () => {
  const range = { from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-12-01T00:00:00Z') };

  it('states the span a window really holds when the history is younger than it', () => {
    expect(dataSpanNotice(range, new Date('2026-11-16T00:00:00Z'))).toBe(
      'Data begins 2026-11-16 00:00 UTC: this window holds 15 days of its 30 days.',
    );
    expect(dataSpanNotice(range, new Date('2026-11-30T20:00:00Z'))).toBe(
      'Data begins 2026-11-30 20:00 UTC: this window holds 4 hours of its 30 days.',
    );
  });

  it('says nothing when the history covers the window, or is unknown', () => {
    expect(dataSpanNotice(range, new Date('2026-10-01T00:00:00Z'))).toBeNull();
    expect(dataSpanNotice(range, range.from)).toBeNull();
    expect(dataSpanNotice(range, null)).toBeNull();
  });
});
