import type { RedriveBrakes } from '../kernel/context';
import type { RedriveBrakeRule } from '@holdfast/protocol/errors';

/** What the brakes read about one task: its redrives so far and when it was first seen. */
export interface RedriveHistory {
  redrivesUsed: number;
  lastRedriveAt: Date | null;
  createdAt: Date;
}

/** One brake that refuses, with a sentence a person can act on. */
export interface BrakeRefusal {
  rule: RedriveBrakeRule;
  message: string;
}

/**
 * Every brake that refuses redriving this task now; empty when the redrive may
 * go ahead. Without brakes a task that keeps failing could be redriven for ever,
 * each redrive granting a fresh allowance of retries, spend and time.
 */
export function redriveBrakesRefusing(history: RedriveHistory, brakes: RedriveBrakes, now: Date): BrakeRefusal[] {
  const refusals: BrakeRefusal[] = [];
  if (history.redrivesUsed >= brakes.maxRedrives) {
    refusals.push({
      rule: 'redrive_limit',
      message:
        brakes.maxRedrives === 0
          ? 'redrives are turned off (at most 0)'
          : `already redriven ${history.redrivesUsed} time${history.redrivesUsed === 1 ? '' : 's'} (at most ${brakes.maxRedrives})`,
    });
  }
  if (history.lastRedriveAt) {
    // A clock that stepped back counts as "just redriven": the cool-down still holds.
    const sinceLast = Math.max(0, now.getTime() - history.lastRedriveAt.getTime());
    if (sinceLast < brakes.cooldownMs) {
      refusals.push({
        rule: 'redrive_cooldown',
        message: `last redriven ${formatDuration(sinceLast)} ago (wait ${formatDuration(brakes.cooldownMs)} between redrives)`,
      });
    }
  }
  const age = now.getTime() - history.createdAt.getTime();
  if (age > brakes.maxTaskAgeMs) {
    refusals.push({
      rule: 'task_too_old',
      message: `first seen ${formatDuration(age)} ago (older than ${formatDuration(brakes.maxTaskAgeMs)})`,
    });
  }
  return refusals;
}

/** The refusals as one sentence, for an error message or a disabled button's reason. */
export function describeBrakeRefusals(refusals: BrakeRefusal[]): string {
  return refusals.map((refusal) => refusal.message).join('; ');
}

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "45 s", "4 min", "2.5 h", "9 days": the largest unit that reads well, at most one decimal, rounded down. */
export function formatDuration(ms: number): string {
  const [size, unit] =
    ms < MINUTE ? [SECOND, 's'] : ms < 2 * HOUR ? [MINUTE, 'min'] : ms < 2 * DAY ? [HOUR, 'h'] : [DAY, 'days'];
  const value = Math.floor((ms / size) * 10) / 10;
  return `${value} ${unit}`;
}
