import { describe, expect, it } from 'vitest';
import { csvCell, csvLine, diffRecord } from '../../../lib/console/audit-view';
import { auditFilter } from '../../../lib/filters/audit';

describe('diffRecord', () => {
  it('lists only the fields that changed, nested values compared whole', () => {
    expect(
      diffRecord(
        { status: 'open', owner: 'team:web', meta: { a: 1 } },
        { status: 'cleared', owner: 'team:web', meta: { a: 2 }, resolution: 'resume' },
      ),
    ).toEqual([
      { field: 'status', before: 'open', after: 'cleared' },
      { field: 'meta', before: '{"a":1}', after: '{"a":2}' },
      { field: 'resolution', before: '—', after: 'resume' },
    ]);
    expect(diffRecord(null, { engaged: true })).toEqual([{ field: 'engaged', before: '—', after: 'true' }]);
    expect(diffRecord(null, null)).toEqual([]);
  });

  it('leaves out a field only the before names when both sides were recorded: context, not a removal', () => {
    // A hold cleared: the before names its owner, the after records the outcome; the owner did not change.
    expect(diffRecord({ status: 'open', owner: 'team:payments' }, { status: 'cleared', resolution: 'resume' })).toEqual(
      [
        { field: 'status', before: 'open', after: 'cleared' },
        { field: 'resolution', before: '—', after: 'resume' },
      ],
    );
    // A record with nothing after (a deletion) still lists every field as gone.
    expect(diffRecord({ owner: 'team:payments' }, null)).toEqual([
      { field: 'owner', before: 'team:payments', after: '—' },
    ]);
  });
});

describe('CSV export cells', () => {
  it('quotes commas, quotes and line breaks, and defuses spreadsheet formulas', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell('-1')).toBe("'-1");
    // A number is never a formula: a fall in spend stays a number.
    expect(csvCell(-1.5)).toBe('-1.5');
    expect(csvCell(null)).toBe('');
    expect(csvCell({ status: 'open' })).toBe('"{""status"":""open""}"');
    expect(csvCell(new Date('2026-11-30T08:00:00Z'))).toBe('2026-11-30T08:00:00.000Z');
    expect(csvLine(['a', 1, null])).toBe('a,1,\r\n');
  });
});

describe('auditFilter', () => {
  it('reads UTC times from the form and refuses nonsense, naming the field', () => {
    expect(auditFilter.parse({ from: '2026-11-30T08:00', action: '' })).toEqual({
      from: new Date('2026-11-30T08:00:00Z'),
    });
    const bad = auditFilter.safeParse({ to: 'yesterday' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['to']);
    expect(auditFilter.safeParse({ role: 'admin' }).success).toBe(false);
  });
});
