import type { MappedSpans } from './mapped-spans';
import type { SpanAttempt } from './span-to-attempt';
import type { SpanTry } from './span-to-try';

/**
 * A mapped batch in pieces that each lock at most `maxKeys` keys (store-spans.ts, lockForSpans), so that no
 * batch needs a lock excluding every other exporter's. Spans stay together by trace, and a model call's tries
 * with their call, where they fit: a piece is one transaction, and a try stored in a piece before its call's
 * waits for the call as it would across two batches (store-spans.ts numbers both orders exactly).
 *
 * The keys a piece locks: the traces of its model calls and tries, the tasks of its calls, and the task of each
 * try whose parent call is not in the piece (read under the transaction, so counted here as one key each).
 * One piece (the batch itself) when it fits.
 */
export function piecesOf(mapped: MappedSpans, maxKeys: number): MappedSpans[] {
  if (lockKeysOf(mapped) <= maxKeys) return [mapped];

  // Atoms: the calls of one task in one trace with the tries whose parent is among them; a try of a parent not
  // in this batch alone.
  interface Atom {
    trace: string;
    calls: SpanAttempt[];
    tries: SpanTry[];
    orphanTries: SpanTry[];
  }
  const atoms = new Map<string, Atom>();
  const callAtom = new Map<string, Atom>();
  for (const call of mapped.calls) {
    const name = `${call.traceId}\u0000${call.taskId}`;
    let atom = atoms.get(name);
    if (!atom) atoms.set(name, (atom = { trace: call.traceId, calls: [], tries: [], orphanTries: [] }));
    atom.calls.push(call);
    callAtom.set(call.traceId + call.spanId, atom);
  }
  const orphans = new Set(mapped.triesOfEarlierParents);
  const looseAtoms: Atom[] = [];
  for (const spanTry of mapped.tries) {
    const parentAtom = orphans.has(spanTry) ? undefined : callAtom.get(spanTry.traceId + spanTry.parentSpanId);
    if (parentAtom) parentAtom.tries.push(spanTry);
    else looseAtoms.push({ trace: spanTry.traceId, calls: [], tries: [spanTry], orphanTries: [spanTry] });
  }
  const ordered = [...atoms.values(), ...looseAtoms].sort((a, b) =>
    a.trace < b.trace ? -1 : a.trace > b.trace ? 1 : 0,
  );

  const pieces: MappedSpans[] = [];
  let piece = emptyPiece();
  let traces = new Set<string>();
  let tasks = new Set<string>();
  for (const atom of ordered) {
    const locksTrace = atom.tries.length > 0 || atom.calls.some((call) => call.modelCall);
    const addedKeys =
      (locksTrace && !traces.has(atom.trace) ? 1 : 0) +
      (atom.calls.length > 0 && !tasks.has(atom.calls[0]!.taskId) ? 1 : 0) +
      atom.orphanTries.length;
    if (traces.size + tasks.size + piece.triesOfEarlierParents.length + addedKeys > maxKeys) {
      pieces.push(piece);
      piece = emptyPiece();
      traces = new Set();
      tasks = new Set();
    }
    if (locksTrace) traces.add(atom.trace);
    for (const call of atom.calls) tasks.add(call.taskId);
    piece.calls.push(...atom.calls);
    piece.tries.push(...atom.tries);
    piece.triesOfEarlierParents.push(...atom.orphanTries);
  }
  pieces.push(piece);
  // The spans refused while mapping are reported once, with the first piece.
  pieces[0]!.rejected.push(...mapped.rejected);
  return pieces;
}

function emptyPiece(): MappedSpans {
  return { calls: [], tries: [], triesOfEarlierParents: [], rejected: [] };
}

/** The most keys the batch's transaction may lock (see piecesOf). */
function lockKeysOf(mapped: MappedSpans): number {
  const traces = new Set([
    ...mapped.calls.filter((call) => call.modelCall).map((call) => call.traceId),
    ...mapped.tries.map((spanTry) => spanTry.traceId),
  ]);
  const tasks = new Set(mapped.calls.map((call) => call.taskId));
  return traces.size + tasks.size + mapped.triesOfEarlierParents.length;
}
