import { describe, expect, it } from 'vitest';
import { isRunbookAddress, saveStepOwnerInput } from '../../../packages/protocol/src/inputs/owner-input';

describe('an owner as an admin gives it', () => {
  it('takes a runbook that is an http(s) address or a path of this console, and nothing else', () => {
    for (const address of ['https://runbooks.example.com/payments', 'http://wiki.local/x', '/runbooks/stale-lock'])
      expect(isRunbookAddress(address), address).toBe(true);
    for (const address of [
      'javascript:alert(1)',
      '//evil.example.com/x',
      '/\\evil.example.com',
      'ftp://x',
      'runbooks/x',
      '',
    ])
      expect(isRunbookAddress(address), address).toBe(false);
  });

  it('reads blank contact and runbook as none, and names what is wrong', () => {
    const valid = { agent: 'research', step: '*', owner: 'team:platform', reason: 'ours' };
    expect(saveStepOwnerInput.parse({ ...valid, contact: '  ', runbookUrl: '' })).toEqual({
      ...valid,
      contact: undefined,
      runbookUrl: undefined,
    });
    const refused = saveStepOwnerInput.safeParse({ ...valid, owner: 'platform', step: 'two words', reason: '' });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((issue) => issue.path[0]).sort()).toEqual(['owner', 'reason', 'step']);
  });
});
