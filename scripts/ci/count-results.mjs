// Sums the JSON reports that vitest, Playwright, the Python client's runner
// (scripts/ci/python-client-tests.ts), the fault suite (scripts/ci/fault-suite.ts) and the
// promtool checks (scripts/ci/promtool-checks.ts), the last three as { passed, failed, skipped },
// wrote into a folder. Prints the name and first lines of every failure, then one line,
// "N passed, N failed, N skipped", over everything that ran: CI keeps only the end of
// the output, so what failed must be printed next to the count.
import fs from 'node:fs';
import path from 'node:path';

const folder = process.argv[2];
let passed = 0;
let failed = 0;
let skipped = 0;
/** @type {{ report: string, name: string, detail: string }[]} */
const failures = [];

/** The first lines of a failure message, without colour codes. */
const colourCode = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
function firstLines(text, count = 16) {
  const plain = String(text ?? '').replace(colourCode, '');
  // Blank lines skipped and long lines cut, so that a diff's lines (what was received) fit in what CI keeps.
  return plain
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(0, count)
    .map((line) => (line.length > 400 ? `${line.slice(0, 400)}…` : line))
    .join('\n');
}

function vitestFailures(report, reportName) {
  for (const file of report.testResults ?? []) {
    const failedTests = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failedTests) {
      failures.push({
        report: reportName,
        name: `${file.name} > ${test.fullName}`,
        detail: firstLines(test.failureMessages?.[0]),
      });
    }
    // A file that failed to load or whose hook threw has no failed test, only a message.
    if (file.status === 'failed' && failedTests.length === 0) {
      failures.push({ report: reportName, name: file.name, detail: firstLines(file.message) });
    }
  }
}

function playwrightFailures(suite, reportName, titles = []) {
  const here = suite.title ? [...titles, suite.title] : titles;
  for (const spec of suite.specs ?? []) {
    for (const test of spec.tests ?? []) {
      if (test.status !== 'unexpected') continue;
      const last = test.results?.at(-1);
      failures.push({
        report: reportName,
        name: [...here, spec.title].join(' > '),
        detail: firstLines(last?.error?.message),
      });
    }
  }
  for (const child of suite.suites ?? []) playwrightFailures(child, reportName, here);
}

for (const name of fs.existsSync(folder) ? fs.readdirSync(folder) : []) {
  if (!name.endsWith('.json')) continue;
  const report = JSON.parse(fs.readFileSync(path.join(folder, name), 'utf8'));
  if (name.startsWith('vitest')) {
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    skipped += report.numPendingTests + report.numTodoTests;
    vitestFailures(report, name);
  } else if (name.startsWith('playwright')) {
    passed += report.stats.expected + report.stats.flaky;
    failed += report.stats.unexpected;
    skipped += report.stats.skipped;
    for (const suite of report.suites ?? []) playwrightFailures(suite, name);
  } else if (
    name.startsWith('python') ||
    name.startsWith('faults') ||
    name.startsWith('failover') ||
    name.startsWith('promtool')
  ) {
    passed += report.passed;
    failed += report.failed;
    skipped += report.skipped;
    for (const check of (report.checks ?? []).filter((c) => !c.ok)) {
      failures.push({ report: name, name: check.name, detail: firstLines(check.detail) });
    }
    if (report.error) failures.push({ report: name, name: 'the run itself', detail: firstLines(report.error) });
  }
}

for (const failure of failures) {
  console.log(`FAILED [${failure.report}] ${failure.name}`);
  if (failure.detail) console.log(failure.detail.replace(/^/gm, '    '));
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
