import { describe, expect, it } from 'vitest';
import { auditTargetHref } from '../../../lib/console/audit-target-href';

describe('auditTargetHref', () => {
  it('links each target the library audits to where the console shows it', () => {
    expect(
      [
        ['task', 'order/42'],
        ['key', 'order-42/charge'],
        ['dead_letter', '7'],
        ['step', 'payments/charge_card'],
        ['pause', '3'],
        ['breaker_settings', 'fleet'],
        ['slot', 'publish:site'],
        ['retry_pool', '2'],
        ['alert_rule', 'stale_lock'],
        ['api_token', '5'],
        ['person', 'ada@example.com'],
      ].map(([type, id]) => auditTargetHref(type!, id!)),
    ).toEqual([
      '/tasks/order%2F42',
      '/keys?show=order-42%2Fcharge',
      '/dead-letters/7',
      '/steps/payments/charge_card',
      '/pauses',
      '/pauses',
      '/locks',
      '/settings/retry-pools',
      '/alerts',
      '/settings/tokens',
      '/settings/people',
    ]);
  });

  it('links a hold to its own page, and leaves an unknown type plain', () => {
    expect(auditTargetHref('hold', '2')).toBe('/holds/2');
    expect(auditTargetHref('something_new', 'x')).toBeUndefined();
  });
});
