import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();

async function patternOf(text: string | null): Promise<string | null> {
  const [row] = await database.sql<{ pattern: string | null }[]>`select holdfast_error_pattern(${text}) as pattern`;
  return row!.pattern;
}

/** What the normaliser keeps and what it takes out: one row per rule, and the texts a fleet really sends. */
const cases: [string, string][] = [
  ['400 Bad Request: the recipient address is invalid', '<n> Bad Request: the recipient address is invalid'],
  ['timeout after 30000 ms', 'timeout after <n> ms'],
  ['took 1.25 s', 'took <n> s'],
  ['GET https://api.example.com/v1/orders/8812?expand=items failed', 'GET <url> failed'],
  ['no mailbox for ada.lovelace+billing@example.co.uk', 'no mailbox for <email>'],
  ['task 3f1c2a9e-77b0-4c1d-9e2f-0a1b2c3d4e5f not found', 'task <uuid> not found'],
  ['template "spring-sale" missing', 'template "…" missing'],
  ["column 'user_id' does not exist", "column '…' does not exist"],
  ["can't reach the host", "can't reach the host"],
  ['connect ECONNREFUSED 10.0.3.17:5432', 'connect ECONNREFUSED <ip>'],
  ['checksum 9f86d081884c7d65 mismatch', 'checksum <hex> mismatch'],
  ['pointer 0x7ffd5e8c2a10 freed twice', 'pointer <hex> freed twice'],
  ['deadbeefcafe is a word here', 'deadbeefcafe is a word here'],
  ['request req_8812 failed', 'request req_<n> failed'],
  ['  \n  rate limited:   retry   in 12s  ', 'rate limited: retry in <n>s'],
  [
    'TypeError: cannot read properties of undefined\n    at handler (/srv/agent/index.js:41:7)\n    at run (/srv/agent/run.js:9:3)',
    'TypeError: cannot read properties of undefined',
  ],
  ['', ''],
];

describe('holdfast_error_pattern', () => {
  it.each(cases)('%j becomes %j', async (text, pattern) => {
    expect(await patternOf(text)).toBe(pattern);
  });

  it('gives nothing for no text, and at most 300 characters', async () => {
    expect(await patternOf(null)).toBeNull();
    expect(await patternOf(`Error: ${'word '.repeat(200)}`)).toHaveLength(300);
  });

  it('puts two failures that differ only in their ids and numbers in one group, and another class or step in another', async () => {
    const [row] = await database.sql<{ same: boolean; other_class: boolean; other_step: boolean }[]>`
      select holdfast_error_fingerprint('mailer', 'send', 'permanent', '400: no mailbox for a@example.com (request 17)')
          = holdfast_error_fingerprint('mailer', 'send', 'permanent', '400: no mailbox for b@example.org (request 93)') as same,
        holdfast_error_fingerprint('mailer', 'send', 'permanent', '400: x')
          = holdfast_error_fingerprint('mailer', 'send', 'transient', '400: x') as other_class,
        holdfast_error_fingerprint('mailer', 'send', 'permanent', '400: x')
          = holdfast_error_fingerprint('mailer', 'draft', 'permanent', '400: x') as other_step`;
    expect(row).toEqual({ same: true, other_class: false, other_step: false });
  });
});
