// Prints the closing line CI reads ("tests: N passed, N failed") from vitest's JSON reports,
// one per run (the machine's Node, then the current LTS): `ci-summary.mjs FILE STATUS
// [FILE STATUS ...]`. Exits non-zero when any run failed or executed no test at all.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;
let bad = false;
const failures = [];
const flaky = [];
for (let i = 0; i < args.length; i += 2) {
  const file = args[i];
  const status = Number(args[i + 1] ?? 1);
  let runPassed = 0;
  let runFailed = 0;
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    runPassed = report.numPassedTests ?? 0;
    // Failing tests, plus files that failed with no test failing (an import error, a hook):
    // vitest's numFailedTestSuites also counts each describe block around a failing test.
    runFailed = 0;
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    for (const suite of report.testResults ?? []) {
      const where = String(suite.name ?? '').replace(process.cwd() + '/', '');
      const failedTests = (suite.assertionResults ?? []).filter((t) => t.status === 'failed');
      runFailed += failedTests.length;
      if (suite.status === 'failed' && failedTests.length === 0) {
        runFailed += 1;
        failures.push(`${file}: ${where}: ${String(suite.message ?? '').split('\n')[0].slice(0, 300)}`);
      }
      for (const t of (suite.assertionResults ?? []).filter((t) => t.status === 'passed' && (t.failureMessages ?? []).length > 0)) {
        const why = String(t.failureMessages[0] ?? '').split('\n')[0].slice(0, 300);
        flaky.push(`${file}: ${where} > ${t.fullName ?? t.title}: ${why}`);
      }
      for (const t of failedTests) {
        const why = String((t.failureMessages ?? [])[0] ?? '').split('\n')[0].slice(0, 300);
        failures.push(`${file}: ${where} > ${t.fullName ?? t.title}: ${why}`);
      }
    }
  } catch {
    runFailed = 1;
  }
  if (status !== 0 && runFailed === 0) runFailed = 1;
  if (status !== 0 || runFailed > 0 || runPassed === 0) bad = true;
  passed += runPassed;
  failed += runFailed;
}
if (args.length === 0) failed = 1;
// The failing tests by name, so that the tail of a CI log says which ones (the log's head may be cut).
if (flaky.length > 0) {
  console.log('passed on a second try (a failure first, named here so that it is looked into):');
  for (const f of flaky.slice(0, 40)) console.log(`  ${f}`);
}
if (failures.length > 0) {
  console.log('failed:');
  for (const f of failures.slice(0, 40)) console.log(`  ${f}`);
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(bad || failed > 0 || passed === 0 ? 1 : 0);
