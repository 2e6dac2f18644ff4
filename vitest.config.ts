import { defineConfig } from 'vitest/config';

// Two projects: fast unit tests of the sources, and end-to-end tests that drive the built
// binary (dist/) against a real sandbox. `npm test` builds first and runs both.
export default defineConfig({
  test: {
    // The list of skipped tests and what would run them, at the end of the run.
    reporters: ['default', './test/skipped-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**'],
          environment: 'node',
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Under CI a failed end-to-end test runs once more: a shared 2-core runner can starve
          // a timing-bound step. Each test that passed only the second time is named at the end
          // of the CI log (scripts/ci-summary.mjs, "passed on a second try"), never hidden.
          retry: process.env.CI === 'true' ? 1 : 0,
          pool: 'forks',
          maxWorkers: 2,
          // vitest runs projects with different worker limits only in separate groups.
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
