import { createElement as h } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { LongText } from '@/components/ui/long-text';
import { PageHeader } from '@/components/ui/page-header';
import { VisibleText } from '@/components/ui/visible-text';
import { hasBidiControls, visibleText, visibleTextParts } from '../../../lib/console/visible-text';

/** Every bidi control the console marks: embeddings, overrides, isolates and the direction marks. */
const CONTROLS = [
  '\u202A',
  '\u202B',
  '\u202C',
  '\u202D',
  '\u202E',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200E',
  '\u200F',
  '\u061C',
];
const codeOf = (control: string) => control.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
const anyControl = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

describe('visibleText', () => {
  it('shows every bidi embedding, override, isolate and direction mark as a marker instead of applying it', () => {
    for (const control of CONTROLS) expect(visibleText(`a${control}b`)).toBe(`a⟨U+${codeOf(control)}⟩b`);
    expect(visibleText('invoice\u202Efdp.exe')).toBe('invoice⟨U+202E⟩fdp.exe');
    expect(visibleText('\u200Fpay\u061C\u200E')).toBe('⟨U+200F⟩pay⟨U+061C⟩⟨U+200E⟩');
  });

  it('leaves other text alone, right-to-left scripts and line breaks included, and shows nothing for no text', () => {
    expect(visibleText('timeout after 30 s\n  at charge (pay.ts:12)')).toBe(
      'timeout after 30 s\n  at charge (pay.ts:12)',
    );
    expect(visibleText('خطأ في الدفع')).toBe('خطأ في الدفع');
    // Other invisible characters are not bidi controls: a zero-width joiner shapes Arabic and emoji.
    expect(visibleText('a\u200Db')).toBe('a\u200Db');
    expect(visibleText(null)).toBe('');
    expect(visibleText(undefined)).toBe('');
  });
});

describe('visibleTextParts', () => {
  it('cuts a text into plain runs and one explained marker per control, at their offsets', () => {
    expect(visibleTextParts('ab\u202E\u2066cd')).toEqual([
      { kind: 'text', text: 'ab', offset: 0 },
      {
        kind: 'control',
        marker: '⟨U+202E⟩',
        description: 'Hidden control character U+202E (right-to-left override) in the stored text: shown, not applied',
        offset: 2,
      },
      {
        kind: 'control',
        marker: '⟨U+2066⟩',
        description: 'Hidden control character U+2066 (left-to-right isolate) in the stored text: shown, not applied',
        offset: 3,
      },
      { kind: 'text', text: 'cd', offset: 4 },
    ]);
    expect(visibleTextParts('plain')).toEqual([{ kind: 'text', text: 'plain', offset: 0 }]);
    expect(visibleTextParts('')).toEqual([]);
    expect(hasBidiControls('a\u061Cb')).toBe(true);
    expect(hasBidiControls('خطأ')).toBe(false);
  });
});

describe('<VisibleText>', () => {
  it('isolates the text and renders each control as a marked, explained escape, never the control itself', () => {
    const markup = renderToStaticMarkup(h(VisibleText, { text: 'report\u202Efdp.exe' }));
    expect(markup).toBe(
      '<bdi>report<span title="Hidden control character U+202E (right-to-left override) in the stored text: shown, not applied" data-bidi-control="⟨U+202E⟩" class="rounded-sm bg-warn-soft px-0.5 font-mono text-[0.85em] text-warn">⟨U+202E⟩</span>fdp.<wbr/>exe</bdi>',
    );
    for (const control of CONTROLS) {
      const shown = renderToStaticMarkup(h(VisibleText, { text: `x${control}y` }));
      expect(shown).not.toMatch(anyControl);
      expect(shown).toContain(`>⟨U+${codeOf(control)}⟩</span>`);
    }
  });

  it('escapes the text as React does and shows plain text unmarked', () => {
    expect(renderToStaticMarkup(h(VisibleText, { text: '<b>step</b>' }))).toBe(
      '<bdi>&lt;b&gt;step&lt;/<wbr/>b&gt;</bdi>',
    );
    expect(renderToStaticMarkup(h(VisibleText, { text: null, testId: 'name' }))).toBe('<bdi data-testid="name"></bdi>');
  });

  it('lets an id break after its separators, adding no character; a long text gets no break of its own', () => {
    expect(renderToStaticMarkup(h(VisibleText, { text: 'team:payments' }))).toBe('<bdi>team:<wbr/>payments</bdi>');
    expect(renderToStaticMarkup(h(VisibleText, { text: 'a/b_c.d-e@f' }))).toBe(
      '<bdi>a/<wbr/>b_<wbr/>c.<wbr/>d-<wbr/>e@<wbr/>f</bdi>',
    );
    const long = `at /srv/${'x'.repeat(600)}`;
    expect(renderToStaticMarkup(h(VisibleText, { text: long }))).toBe(`<bdi>${long}</bdi>`);
  });
});

describe('the primitives that show agent-written text', () => {
  it('LongText marks controls in its short form and in both parts of its long form', () => {
    expect(renderToStaticMarkup(h(LongText, { text: 'bad\u202Einput' }))).not.toMatch(anyControl);
    const long = renderToStaticMarkup(h(LongText, { text: `line one\u2067\n${'x'.repeat(300)}` }));
    expect(long).not.toMatch(anyControl);
    // Once clamped, once whole behind "Show all".
    expect(long.match(/data-bidi-control="⟨U\+2067⟩"/g)).toHaveLength(2);
  });

  it("PageHeader marks the controls of a title or description that names an agent's task", () => {
    const markup = renderToStaticMarkup(
      h(PageHeader, { title: 'Task pay\u202E-42', description: 'research\u200F · active' }),
    );
    expect(markup).not.toMatch(anyControl);
    expect(markup).toContain('⟨U+202E⟩');
    expect(markup).toContain('⟨U+200F⟩');
  });
});
