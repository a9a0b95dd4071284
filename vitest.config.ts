import { defineConfig } from 'vitest/config';

// Two projects: `unit` runs pure code next to its source; `rig` runs the suites under test/
// against the real rig (kube-apiserver, Redis, Git over HTTP) that global-rig.ts starts once.
export default defineConfig({
  test: {
    reporters: ['default'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['libs/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'bench/support/**/*.test.ts'],
          environment: 'node',
          // Pure tests first, then the rig suites, each group with its own worker count.
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'rig',
          include: ['test/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/setup/global-rig.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          pool: 'forks',
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
