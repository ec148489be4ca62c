import { describe, expect, it } from 'vitest';
import { readJson } from '../../../lib/console/read-json';

describe('readJson', () => {
  it('reads JSON', () => {
    expect(readJson('{"a": [1, null, "x"]}')).toEqual({ ok: true, value: { a: [1, null, 'x'] } });
  });

  it('says what is wrong and where, counting lines and columns from 1', () => {
    expect(readJson('{\n  "page": "x",\n  "to": \n}')).toEqual({
      ok: false,
      message: 'a value is expected at line 4, column 1',
    });
    expect(readJson('{"a": 1,}')).toEqual({
      ok: false,
      message: 'a property name in double quotes is expected at line 1, column 9',
    });
    expect(readJson("{'a': 1}")).toMatchObject({ ok: false, message: expect.stringContaining('double quotes') });
    expect(readJson('{"a": 1} // note')).toMatchObject({ ok: false, message: expect.stringContaining('comments') });
    expect(readJson('')).toEqual({ ok: false, message: 'a value is expected at line 1, column 1' });
  });
});
