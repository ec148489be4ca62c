import type { RedriveBrakeRule, RedriveBrakes } from '@holdfast/engine/core';
import { formatDuration } from '@holdfast/engine/core';

/** The deployment's redrive brakes in one sentence, for the page's description. */
export function describeBrakes(brakes: RedriveBrakes): string {
  return `A task is redriven at most ${brakes.maxRedrives} time${brakes.maxRedrives === 1 ? '' : 's'}, at least ${formatDuration(brakes.cooldownMs)} apart, and only within ${formatDuration(brakes.maxTaskAgeMs)} of first being seen.`;
}

/** How the bulk preview names the items each brake skips ("2 at the redrive limit (3 per task)"). */
export function brakeLabels(brakes: RedriveBrakes): Record<RedriveBrakeRule, string> {
  return {
    redrive_limit: `at the redrive limit (${brakes.maxRedrives} per task)`,
    redrive_cooldown: `redriven less than ${formatDuration(brakes.cooldownMs)} ago`,
    task_too_old: `of tasks first seen more than ${formatDuration(brakes.maxTaskAgeMs)} ago`,
  };
}
