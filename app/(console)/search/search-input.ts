import { hasLoneSurrogate } from '@holdfast/protocol/well-formed-text';
import { searchKinds, type SearchKind } from '@/lib/queries/search';

/**
 * The longest id worth looking up: a derived key is `<task id>/<step>#<iteration>`,
 * at most 200 + 1 + 100 + 1 + 5 characters, and every other id is shorter.
 */
export const SEARCH_MAX_LENGTH = 320;

/** `hold:42`, `dl:42`, `step:payments/charge_card`: a kind written before the id narrows the search to it. */
const kindPrefixes = new Map<string, SearchKind>(
  Object.entries({
    task: 'task',
    key: 'key',
    hold: 'hold',
    'dead-letter': 'dead_letter',
    dead_letter: 'dead_letter',
    dl: 'dead_letter',
    step: 'step',
  }) as [string, SearchKind][],
);

export type SearchInput =
  /** `whole` is what was typed, prefix and all: an id may itself start with `task:`. */
  { ok: true; term: string; kind?: SearchKind; whole: string } | { ok: false; term: string; message: string };

/** Reads the search box's `q` as the URL carries it: trimmed, one value, a known kind prefix split off. */
export function parseSearchInput(raw: string | string[] | undefined): SearchInput {
  const given = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? '';
  if (given === '') return { ok: false, term: '', message: 'Type an id, or the start of one, to search for.' };
  if (given.length > SEARCH_MAX_LENGTH)
    return {
      ok: false,
      term: given.slice(0, 40),
      message: `That is ${given.length.toLocaleString('en-US')} characters; no id is longer than ${SEARCH_MAX_LENGTH}.`,
    };
  // A NUL names nothing and PostgreSQL refuses it in text: answer it here rather than with a 500.
  if (given.includes('\0')) return { ok: false, term: '', message: 'An id cannot contain a NUL character.' };
  if (hasLoneSurrogate(given))
    return { ok: false, term: '', message: 'An id cannot contain a lone UTF-16 surrogate (such as \\ud800).' };
  const [, prefix, rest] = /^([a-z_-]+):\s*(.+)$/i.exec(given) ?? [];
  const kind = prefix ? kindPrefixes.get(prefix.toLowerCase()) : undefined;
  if (kind && rest) return { ok: true, term: rest.trim(), kind, whole: given };
  return { ok: true, term: given, whole: given };
}

/** The kinds a search looks in: the one it was narrowed to, or all of them. */
export function kindsToSearch(input: { kind?: SearchKind }): readonly SearchKind[] {
  return input.kind ? [input.kind] : searchKinds;
}
