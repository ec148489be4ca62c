import { describe, expect, it } from 'vitest';
import { recordAttemptInput } from '../../../packages/engine/src/core';
import { generateDemoAttempts } from '../../../lib/demo/seed-attempts';

describe('demo attempts', () => {
  const now = new Date('2026-11-30T12:00:00.000Z');
  const reports = generateDemoAttempts(now);

  it('are all valid reports, inside the fourteen days before now', () => {
    for (const report of reports) {
      const parsed = recordAttemptInput.parse(report);
      expect(parsed.startedAt.getTime()).toBeLessThan(now.getTime());
      expect(parsed.startedAt.getTime()).toBeGreaterThanOrEqual(now.getTime() - 14 * 24 * 3_600_000);
    }
  });

  it('include retries and failures, and are the same on every run', () => {
    expect(reports.some((report) => report.attemptNumber > 1)).toBe(true);
    expect(reports.some((report) => report.outcome === 'failed')).toBe(true);
    expect(generateDemoAttempts(now)).toEqual(reports);
  });

  it('bill refused calls nothing and failures that did the work in full, as a provider bills them', () => {
    const failures = reports.filter((report) => report.outcome === 'failed');
    for (const report of failures.filter((each) =>
      ['rate_limited', 'transient', 'permanent'].includes(each.errorClass ?? ''),
    ))
      expect(report.costMicros, `${report.errorClass} ${report.errorText}`).toBe(0);
    const didTheWork = failures.filter((each) => each.errorClass === 'timeout' || each.errorClass === 'invalid_output');
    expect(didTheWork.length).toBeGreaterThan(0);
    for (const report of didTheWork) expect(report.costMicros).toBeGreaterThan(0);
  });

  it('never report the same attempt twice', () => {
    const ids = reports.map((report) => `${report.taskId}/${report.step}/${report.attemptNumber}`);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
