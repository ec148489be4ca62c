/**
 * Bidirectional embedding, override and isolate controls (U+202A–U+202E,
 * U+2066–U+2069). In an agent's error text or a hold's detail the browser
 * would apply them: "report‮fdp.exe" reads as "reportexe.pdf", and a person
 * could clear a hold on a detail that shows the opposite of what it says.
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

/**
 * A stored text as the console shows it: unchanged, except that each bidi
 * control becomes a visible marker (⟨U+202E⟩), so it is seen, not applied.
 * The stored text stays as the agent sent it; only its display changes.
 * No text (null) shows as nothing.
 */
export function visibleText(text: string | null | undefined): string {
  return (text ?? '').replace(
    BIDI_CONTROLS,
    (control) => `⟨U+${control.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`,
  );
}
