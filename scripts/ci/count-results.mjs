// Sums the JSON reports that vitest, Playwright, the Python client's runner
// (scripts/ci/python-client-tests.ts), the fault suite (scripts/ci/fault-suite.ts) and the
// promtool checks (scripts/ci/promtool-checks.ts), the last three as { passed, failed, skipped },
// wrote into a folder and prints
// one line, "N passed, N failed, N skipped", over everything that ran.
import fs from 'node:fs';
import path from 'node:path';

const folder = process.argv[2];
let passed = 0;
let failed = 0;
let skipped = 0;

for (const name of fs.existsSync(folder) ? fs.readdirSync(folder) : []) {
  if (!name.endsWith('.json')) continue;
  const report = JSON.parse(fs.readFileSync(path.join(folder, name), 'utf8'));
  if (name.startsWith('vitest')) {
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    skipped += report.numPendingTests + report.numTodoTests;
  } else if (name.startsWith('playwright')) {
    passed += report.stats.expected + report.stats.flaky;
    failed += report.stats.unexpected;
    skipped += report.stats.skipped;
  } else if (name.startsWith('python') || name.startsWith('faults') || name.startsWith('promtool')) {
    passed += report.passed;
    failed += report.failed;
    skipped += report.skipped;
  }
}

console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
