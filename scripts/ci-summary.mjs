// Prints the closing line CI reads ("tests: N passed, N failed") from vitest's JSON report,
// and exits non-zero when the run failed or executed no test at all.
import { readFileSync } from 'node:fs';

const [file, statusArg] = process.argv.slice(2);
const status = Number(statusArg ?? 1);
let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed = report.numPassedTests ?? 0;
  failed = (report.numFailedTests ?? 0) + (report.numFailedTestSuites ?? 0);
  skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
} catch {
  failed = 1;
}
if (status !== 0 && failed === 0) failed = 1;
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(status !== 0 || failed > 0 || passed === 0 ? 1 : 0);
