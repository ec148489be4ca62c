/**
 * Bidirectional controls: embeddings, overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069) and the invisible direction marks (U+200E, U+200F, U+061C).
 * In an agent's error text, a hold's detail or a step's name the browser would
 * apply them: "report‮fdp.exe" reads as "reportexe.pdf", and a person could
 * clear a hold on a detail that shows the opposite of what it says.
 */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

const BIDI_CONTROL_NAMES: Record<string, string> = {
  '\u061C': 'Arabic letter mark',
  '\u200E': 'left-to-right mark',
  '\u200F': 'right-to-left mark',
  '\u202A': 'left-to-right embedding',
  '\u202B': 'right-to-left embedding',
  '\u202C': 'pop directional formatting',
  '\u202D': 'left-to-right override',
  '\u202E': 'right-to-left override',
  '\u2066': 'left-to-right isolate',
  '\u2067': 'right-to-left isolate',
  '\u2068': 'first strong isolate',
  '\u2069': 'pop directional isolate',
};

/** A stored text cut into what is shown as it is and the bidi controls shown as markers. */
export type VisibleTextPart =
  | { kind: 'text'; text: string; offset: number }
  | { kind: 'control'; marker: string; description: string; offset: number };

const codeOf = (control: string) => `U+${control.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** The marker a bidi control is shown as: ⟨U+202E⟩. */
const markerOf = (control: string) => `⟨${codeOf(control)}⟩`;

/**
 * A stored text as the console shows it where only a string will do (a title,
 * an aria-label, a chart's axis): unchanged, except that each bidi control
 * becomes a visible marker (⟨U+202E⟩), so it is seen, not applied. The stored
 * text stays as the agent sent it; only its display changes. No text (null)
 * shows as nothing. In page content use <VisibleText>, which also explains
 * each marker and isolates the text from what surrounds it.
 */
export function visibleText(text: string | null | undefined): string {
  return (text ?? '').replace(BIDI_CONTROLS, markerOf);
}

/** The parts <VisibleText> renders: plain runs, and a marker with its explanation per control. */
export function visibleTextParts(text: string | null | undefined): VisibleTextPart[] {
  const stored = text ?? '';
  const parts: VisibleTextPart[] = [];
  let from = 0;
  for (const match of stored.matchAll(BIDI_CONTROLS)) {
    if (match.index > from) parts.push({ kind: 'text', text: stored.slice(from, match.index), offset: from });
    const control = match[0];
    parts.push({
      kind: 'control',
      marker: markerOf(control),
      description: `Hidden control character ${codeOf(control)} (${BIDI_CONTROL_NAMES[control]}) in the stored text: shown, not applied`,
      offset: match.index,
    });
    from = match.index + control.length;
  }
  if (from < stored.length) parts.push({ kind: 'text', text: stored.slice(from), offset: from });
  return parts;
}

/** Whether a text holds any bidi control, for a notice or a test. */
export function hasBidiControls(text: string | null | undefined): boolean {
  return (text ?? '').search(BIDI_CONTROLS) !== -1;
}
