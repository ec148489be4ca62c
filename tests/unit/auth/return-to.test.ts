import { describe, expect, it } from 'vitest';
import { safeReturnTo, signInPathReturningTo } from '../../../lib/auth/return-to';

describe('the return-to path after sign-in', () => {
  it.each([
    ['/steps?agent=research', '/steps?agent=research'],
    ['/holds?owner=team%3Apayments&view=open', '/holds?owner=team%3Apayments&view=open'],
    ['/tasks/t-1#timeline', '/tasks/t-1#timeline'],
    ['/alerts?tab=history', '/alerts?tab=history'],
  ])('follows a same-site path: %s', (given, expected) => {
    expect(safeReturnTo(given)).toBe(expected);
  });

  it.each([
    ['https://evil.example/steal'],
    ['//evil.example/x'],
    ['/\\evil.example/x'],
    ['/\t/evil.example'],
    ['javascript:alert(1)'],
    ['steps'],
    [''],
    ['/sign-in'],
    ['/sign-in?next=/x'],
    [`/${'a'.repeat(2_001)}`],
    [undefined],
    [42],
  ])('goes home instead of following %s', (given) => {
    expect(safeReturnTo(given)).toBe('/');
  });

  it('builds the sign-in address that returns to the page', () => {
    expect(signInPathReturningTo('/steps?agent=research')).toBe('/sign-in?next=%2Fsteps%3Fagent%3Dresearch');
    expect(signInPathReturningTo('/')).toBe('/sign-in');
    expect(signInPathReturningTo('//evil.example')).toBe('/sign-in');
  });
});
