import { describe, expect, it } from 'vitest';
import { visibleText } from '../../lib/console/visible-text';

describe('visibleText', () => {
  it('shows every bidi embedding, override and isolate as a marker instead of applying it', () => {
    const controls = ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069'];
    for (const control of controls)
      expect(visibleText(`a${control}b`)).toBe(`a⟨U+${control.codePointAt(0)!.toString(16).toUpperCase()}⟩b`);
    expect(visibleText('invoice\u202Efdp.exe')).toBe('invoice⟨U+202E⟩fdp.exe');
  });

  it('leaves other text alone, right-to-left scripts and line breaks included, and shows nothing for no text', () => {
    expect(visibleText('timeout after 30 s\n  at charge (pay.ts:12)')).toBe(
      'timeout after 30 s\n  at charge (pay.ts:12)',
    );
    expect(visibleText('خطأ في الدفع')).toBe('خطأ في الدفع');
    expect(visibleText(null)).toBe('');
  });
});
