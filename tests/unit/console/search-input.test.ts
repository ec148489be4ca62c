import { describe, expect, it } from 'vitest';
import { kindsToSearch, parseSearchInput, SEARCH_MAX_LENGTH } from '../../../app/(console)/search/search-input';
import { searchKinds } from '../../../lib/queries/search';

describe('the search box input', () => {
  it('trims the id and searches every kind', () => {
    const input = parseSearchInput('  refund-2291 ');
    expect(input).toEqual({ ok: true, term: 'refund-2291', whole: 'refund-2291' });
    expect(kindsToSearch(input.ok ? input : {})).toEqual(searchKinds);
  });

  it.each([
    ['hold:42', 'hold', '42'],
    ['HOLD: 42', 'hold', '42'],
    ['dl:7', 'dead_letter', '7'],
    ['dead-letter:7', 'dead_letter', '7'],
    ['task:refund-2291', 'task', 'refund-2291'],
    ['key:refund-2291/charge_card', 'key', 'refund-2291/charge_card'],
    ['step:payments/charge_card', 'step', 'payments/charge_card'],
  ])('narrows %s to one kind', (raw, kind, term) => {
    const input = parseSearchInput(raw);
    expect(input).toMatchObject({ ok: true, kind, term, whole: raw.trim() });
    expect(kindsToSearch(input.ok ? input : {})).toEqual([kind]);
  });

  it('keeps a colon that names no kind as part of the id', () => {
    expect(parseSearchInput('publish:e2e-1234')).toEqual({
      ok: true,
      term: 'publish:e2e-1234',
      whole: 'publish:e2e-1234',
    });
    expect(parseSearchInput('constructor:x')).toEqual({ ok: true, term: 'constructor:x', whole: 'constructor:x' });
    expect(parseSearchInput('hold:')).toEqual({ ok: true, term: 'hold:', whole: 'hold:' });
  });

  it('takes the first of repeated values', () => {
    expect(parseSearchInput(['a-1', 'b-2'])).toMatchObject({ ok: true, term: 'a-1' });
  });

  it.each([[undefined], [''], ['   '], [[]]])('asks for an id when given none (%j)', (raw) => {
    expect(parseSearchInput(raw)).toEqual({
      ok: false,
      term: '',
      message: 'Type an id, or the start of one, to search for.',
    });
  });

  it('says how long an over-long search is, and keeps only its start to show', () => {
    const input = parseSearchInput('x'.repeat(500));
    expect(input).toEqual({
      ok: false,
      term: 'x'.repeat(40),
      message: `That is 500 characters; no id is longer than ${SEARCH_MAX_LENGTH}.`,
    });
    expect(parseSearchInput('x'.repeat(SEARCH_MAX_LENGTH)).ok).toBe(true);
  });

  it('refuses a NUL, which PostgreSQL would refuse with an error', () => {
    expect(parseSearchInput('abc\0def')).toMatchObject({ ok: false });
  });
});
