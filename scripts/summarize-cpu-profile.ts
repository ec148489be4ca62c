/**
 * Reads a V8 CPU profile of the production server (scripts/profile-http-steps.ts writes one) and says where
 * its busy time went, by source: each frame in a build chunk is mapped back through the chunk's source map to
 * the file it came from (Turbopack minifies the server bundle, so the chunk's own names say little).
 *
 *   node --import tsx scripts/summarize-cpu-profile.ts <file.cpuprofile> [seconds]
 *
 * `seconds`: only the last so many seconds before the profile's end, less its final half second (the
 * measured round, without start-up and shutdown); default 10. "Self" is where the CPU was; "on the stack"
 * counts a sample once for every source it passed through (so the column adds up to more than 100 %).
 * PROFILE_LINES=<text> adds self time by file and line within the sources whose name contains the text (`*`: all).
 */
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const [file, secondsArgument] = process.argv.slice(2);
if (!file) throw new Error('usage: summarize-cpu-profile.ts <file.cpuprofile> [seconds]');
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const windowMs = Number(secondsArgument ?? 10) * 1000;

const maps = new Map<string, SourceMap | undefined>();
function sourceMapOf(url: string): SourceMap | undefined {
  if (!maps.has(url)) {
    let map: SourceMap | undefined;
    try {
      const path = url.startsWith('file://') ? fileURLToPath(url) : url;
      map = new SourceMap(JSON.parse(fs.readFileSync(`${path}.map`, 'utf8')));
    } catch {
      map = undefined;
    }
    maps.set(url, map);
  }
  return maps.get(url);
}

/** The file and line a frame ran, through the chunk's source map where it has one. */
function originalOf(node: ProfileNode): { path: string; line: number } {
  const { url, lineNumber, columnNumber } = node.callFrame;
  const map = url.includes('/.next/') ? sourceMapOf(url) : undefined;
  if (map) {
    const entry = map.findEntry(lineNumber, columnNumber) as { originalSource?: string; originalLine?: number };
    if (entry.originalSource) return { path: entry.originalSource, line: (entry.originalLine ?? 0) + 1 };
  }
  return { path: url, line: lineNumber + 1 };
}

/** The source a frame ran: a package, a project folder, node's internals, or what V8 calls it. */
function sourceOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const { path } = originalOf(node);
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg) return pkg[1]!;
  if (path.startsWith('node:')) return path.replace(/^node:internal\//, 'node:');
  const project = /(?:^|\/)((?:lib|app)\/[^/]+|proxy\.ts|scripts)(?:\/|$)/.exec(path);
  if (project) return project[1]!;
  return path.split('/').slice(-2).join('/');
}

const parentOf = new Map<number, number>();
const byId = new Map<number, ProfileNode>();
for (const node of profile.nodes) {
  byId.set(node.id, node);
  for (const child of node.children ?? []) parentOf.set(child, node.id);
}

let at = profile.startTime;
const times = profile.timeDeltas.map((delta) => (at += delta));
const end = times[times.length - 1] ?? at;
const from = end - 500_000 - windowMs * 1000;
const to = end - 500_000;

const self = new Map<string, number>();
/** With PROFILE_LINES set, self time by file and line within the sources that match it (a substring). */
const linesOf = process.env.PROFILE_LINES;
const selfByLine = new Map<string, number>();
const onStack = new Map<string, number>();
let busy = 0;
profile.samples.forEach((id, index) => {
  const time = times[index]!;
  if (time < from || time > to) return;
  const delta = profile.timeDeltas[index + 1] ?? 0;
  const leaf = byId.get(id)!;
  if (leaf.callFrame.functionName === '(idle)') return;
  busy += delta;
  self.set(sourceOf(leaf), (self.get(sourceOf(leaf)) ?? 0) + delta);
  if (linesOf && leaf.callFrame.url && (linesOf === '*' || sourceOf(leaf).includes(linesOf))) {
    const { path, line } = originalOf(leaf);
    const where = `${path.split('/').slice(-2).join('/')}:${line} ${leaf.callFrame.functionName}`;
    selfByLine.set(where, (selfByLine.get(where) ?? 0) + delta);
  }
  const seen = new Set<string>();
  for (let node: number | undefined = id; node !== undefined; node = parentOf.get(node)) {
    const source = sourceOf(byId.get(node)!);
    if (!seen.has(source)) seen.add(source);
  }
  for (const source of seen) onStack.set(source, (onStack.get(source) ?? 0) + delta);
});

const percent = (value: number) => `${((value / busy) * 100).toFixed(1).padStart(5)} %`;
console.log(`busy ${(busy / 1000).toFixed(0)} ms in the ${windowMs / 1000} s window`);
console.log('\nself (where the CPU was)');
for (const [source, value] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25))
  console.log(`${percent(value)}  ${source}`);
console.log('\non the stack (a source and everything it called)');
for (const [source, value] of [...onStack].sort((a, b) => b[1] - a[1]).slice(0, 40))
  console.log(`${percent(value)}  ${source}`);
if (linesOf) {
  console.log(`\nself by line, in sources matching "${linesOf}"`);
  for (const [where, value] of [...selfByLine].sort((a, b) => b[1] - a[1]).slice(0, 40))
    console.log(`${percent(value)}  ${where}`);
}
