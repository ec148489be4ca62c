import { describe, expect, it } from 'vitest';
import { DEFAULT_CORE_POLICY } from '../../../packages/engine/src/core/kernel/context';
import {
  describeBrakeRefusals,
  formatDuration,
  redriveBrakesRefusing,
  type RedriveHistory,
} from '../../../packages/engine/src/core/dead-letters/redrive-brakes';

const brakes = DEFAULT_CORE_POLICY.redriveBrakes; // 3 redrives, 10 min apart, tasks up to 7 days old
const now = new Date('2026-03-10T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const minutes = (count: number) => count * 60_000;
const days = (count: number) => count * 86_400_000;
const fresh: RedriveHistory = { redrivesUsed: 0, lastRedriveAt: null, createdAt: ago(minutes(30)) };

describe('redriveBrakesRefusing', () => {
  it('lets a task that was never redriven through', () => {
    expect(redriveBrakesRefusing(fresh, brakes, now)).toEqual([]);
  });

  it('refuses the redrive after the last one allowed', () => {
    expect(redriveBrakesRefusing({ ...fresh, redrivesUsed: 2, lastRedriveAt: ago(minutes(20)) }, brakes, now)).toEqual(
      [],
    );
    expect(redriveBrakesRefusing({ ...fresh, redrivesUsed: 3, lastRedriveAt: ago(minutes(20)) }, brakes, now)).toEqual([
      { rule: 'redrive_limit', message: 'already redriven 3 times (at most 3)' },
    ]);
  });

  it('says when redrives are turned off altogether', () => {
    expect(redriveBrakesRefusing(fresh, { ...brakes, maxRedrives: 0 }, now)).toEqual([
      { rule: 'redrive_limit', message: 'redrives are turned off (at most 0)' },
    ]);
  });

  it('refuses within the cool-down and allows at its end', () => {
    expect(redriveBrakesRefusing({ ...fresh, redrivesUsed: 1, lastRedriveAt: ago(minutes(4)) }, brakes, now)).toEqual([
      { rule: 'redrive_cooldown', message: 'last redriven 4 min ago (wait 10 min between redrives)' },
    ]);
    expect(redriveBrakesRefusing({ ...fresh, redrivesUsed: 1, lastRedriveAt: ago(minutes(10)) }, brakes, now)).toEqual(
      [],
    );
  });

  it('treats a last redrive in the future (a clock stepped back) as just now', () => {
    const [refusal] = redriveBrakesRefusing(
      { ...fresh, redrivesUsed: 1, lastRedriveAt: new Date(now.getTime() + 5_000) },
      brakes,
      now,
    );
    expect(refusal).toEqual({
      rule: 'redrive_cooldown',
      message: 'last redriven 0 s ago (wait 10 min between redrives)',
    });
  });

  it('refuses a task first seen longer ago than the age limit', () => {
    expect(redriveBrakesRefusing({ ...fresh, createdAt: ago(days(7)) }, brakes, now)).toEqual([]);
    expect(redriveBrakesRefusing({ ...fresh, createdAt: ago(days(9)) }, brakes, now)).toEqual([
      { rule: 'task_too_old', message: 'first seen 9 days ago (older than 7 days)' },
    ]);
  });

  it('names every brake that refuses, in one sentence too', () => {
    const refusals = redriveBrakesRefusing(
      { redrivesUsed: 4, lastRedriveAt: ago(minutes(1)), createdAt: ago(days(30)) },
      brakes,
      now,
    );
    expect(refusals.map((refusal) => refusal.rule)).toEqual(['redrive_limit', 'redrive_cooldown', 'task_too_old']);
    expect(describeBrakeRefusals(refusals)).toBe(
      'already redriven 4 times (at most 3); last redriven 1 min ago (wait 10 min between redrives); first seen 30 days ago (older than 7 days)',
    );
  });

  it('follows the brakes it is given', () => {
    const loose = { maxRedrives: 10, cooldownMs: 0, maxTaskAgeMs: days(365) };
    expect(
      redriveBrakesRefusing({ redrivesUsed: 9, lastRedriveAt: now, createdAt: ago(days(100)) }, loose, now),
    ).toEqual([]);
  });
});

describe('formatDuration', () => {
  it('picks a unit that reads well, rounding down to one decimal', () => {
    expect(formatDuration(45_000)).toBe('45 s');
    expect(formatDuration(minutes(4) + 59_000)).toBe('4.9 min');
    expect(formatDuration(minutes(90))).toBe('90 min');
    expect(formatDuration(minutes(150))).toBe('2.5 h');
    expect(formatDuration(days(9) + minutes(1))).toBe('9 days');
  });
});
