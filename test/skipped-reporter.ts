// Ends a test run with what it did not run and why: outside CI a test that needs a missing
// system package skips (its title or its `ctx.skip(reason)` names the package), and a
// reader of `npm test` should not have to scroll to learn that. Under CI nothing skips that
// way (requireTools throws), so a CI run's list is empty unless a test skips by mistake.
import type { Reporter, TestModule } from 'vitest/node';

const REASON_IN_TITLE = /\(skipped: ([^)]*\)?)\)/;

export default class SkippedReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const byReason = new Map<string, Set<string>>();
    let count = 0;
    for (const mod of testModules) {
      for (const test of mod.children.allTests('skipped')) {
        const result = test.result();
        const note = result.state === 'skipped' ? result.note : undefined;
        const reason = note ?? REASON_IN_TITLE.exec(test.fullName)?.[1] ?? 'no reason given';
        count += 1;
        const files = byReason.get(reason) ?? new Set<string>();
        files.add(mod.moduleId.replace(`${process.cwd()}/`, ''));
        byReason.set(reason, files);
      }
    }
    if (count === 0) return;
    const lines = [`\nskipped: ${count} test${count === 1 ? '' : 's'}, by what would run them:`];
    for (const [reason, files] of [...byReason].sort((a, b) => b[1].size - a[1].size)) {
      lines.push(`  ${reason}`, ...[...files].sort().map((f) => `      ${f}`));
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
