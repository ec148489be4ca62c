import { describe, expect, it } from 'vitest';
import { deadLettersUrlFilter, toDeadLetterFilter } from '../../../lib/filters/dead-letters';
import { holdsFilter } from '../../../lib/filters/holds';
import { keysFilter } from '../../../lib/filters/keys';
import { readFilter } from '../../../lib/filters/read-filter';

describe('readFilter, the one way console pages read their filters from the URL', () => {
  it('keeps the good parameters and ignores a bad one with a notice', () => {
    const { filter, notices, accepted } = readFilter(holdsFilter, {
      owner: 'team:payments',
      minAgeHours: 'soon',
      reason: 'manual',
    });
    expect(filter).toEqual({
      view: 'open',
      mine: false,
      frozen: false,
      owner: 'team:payments',
      reason: 'manual',
      minAgeHours: undefined,
    });
    expect(notices).toEqual(['Ignored minAgeHours=“soon”']);
    expect(accepted).toEqual({ owner: 'team:payments', reason: 'manual' });
  });

  it('treats blank as absent, takes the first of a repeated parameter and leaves unknown ones alone', () => {
    const { filter, notices } = readFilter(keysFilter, { key: '', step: ['charge', 'refund'], page: '2' });
    expect(filter).toEqual({ key: undefined, taskId: undefined, step: 'charge', show: undefined });
    expect(notices).toEqual([]);
  });

  it('refuses a NUL without echoing it', () => {
    const { filter, notices } = readFilter(holdsFilter, { owner: 'team:a\u0000' });
    expect(filter.owner).toBeUndefined();
    expect(notices).toEqual(['Ignored owner: must not contain NUL characters']);
  });

  it('reads dead-letter spend in dollars into the library filter', () => {
    const { filter, notices } = readFilter(deadLettersUrlFilter, { minSpendUsd: '0.25', errorClass: 'nonsense' });
    expect(toDeadLetterFilter(filter)).toEqual({ minSpendMicros: 250_000 });
    expect(notices).toEqual(['Ignored errorClass=“nonsense”']);
  });
});
