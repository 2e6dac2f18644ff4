// Prints the closing line CI reads ("tests: N passed, N failed") from vitest's JSON reports,
// one per run (the machine's Node, then the current LTS): `ci-summary.mjs FILE STATUS
// [FILE STATUS ...]`. Exits non-zero when any run failed or executed no test at all.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;
let bad = false;
for (let i = 0; i < args.length; i += 2) {
  const file = args[i];
  const status = Number(args[i + 1] ?? 1);
  let runPassed = 0;
  let runFailed = 0;
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    runPassed = report.numPassedTests ?? 0;
    runFailed = (report.numFailedTests ?? 0) + (report.numFailedTestSuites ?? 0);
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  } catch {
    runFailed = 1;
  }
  if (status !== 0 && runFailed === 0) runFailed = 1;
  if (status !== 0 || runFailed > 0 || runPassed === 0) bad = true;
  passed += runPassed;
  failed += runFailed;
}
if (args.length === 0) failed = 1;
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(bad || failed > 0 || passed === 0 ? 1 : 0);
