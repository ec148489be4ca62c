import type { ErrorClass } from '@holdfast/protocol/enums';

/**
 * Series colours. A step's colour comes from a hash of its `agent/step` key,
 * not its rank, so it stays the same on every window and every page. Ten hues
 * readable on the light and the dark theme keep collisions rare; when two of
 * the charted steps do share one, the legend and the tooltip still name them.
 */
export const seriesPalette = [
  '#3b82f6', // blue
  '#f59e0b', // amber
  '#ef4444', // red
  '#10b981', // emerald
  '#8b5cf6', // violet
  '#06b6d4', // cyan
  '#ec4899', // pink
  '#65a30d', // lime
  '#ea580c', // orange
  '#64748b', // slate
] as const;

/** FNV-1a (32-bit) over the UTF-16 code units: small, fast, and the same in every browser and on the server. */
export function stableHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The colour of a series named `key` (a step's `agent/step`, an error class): always the same for the same key. */
export function seriesColour(key: string): string {
  return seriesPalette[stableHash(key) % seriesPalette.length]!;
}

/**
 * Colours for the series of one chart, keys in order of importance (the most
 * retry spend first). Each key takes its own hash colour; only when a more
 * important key of the same chart already holds it does it move to the next
 * free one, so a chart never shows two series alike, and the step that leads
 * keeps its colour whatever else is charted beside it.
 */
export function assignSeriesColours(keys: readonly string[]): Map<string, string> {
  const colours = new Map<string, string>();
  const taken = new Set<number>();
  for (const key of keys) {
    if (colours.has(key)) continue;
    const preferred = stableHash(key) % seriesPalette.length;
    let slot = preferred;
    for (let step = 0; step < seriesPalette.length && taken.has(slot); step++) {
      slot = (preferred + step + 1) % seriesPalette.length;
    }
    if (taken.has(slot)) slot = preferred; // more series than colours: the legend tells them apart
    taken.add(slot);
    colours.set(key, seriesPalette[slot]!);
  }
  return colours;
}

/** Error classes are a fixed list, so each has its own colour on every chart: permanent in red, unknown in grey. */
export const errorClassColours: Record<ErrorClass, string> = {
  transient: '#f59e0b',
  timeout: '#8b5cf6',
  rate_limited: '#06b6d4',
  invalid_output: '#ec4899',
  permanent: '#ef4444',
  unknown: '#64748b',
};
