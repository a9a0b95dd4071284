import { defineConfig } from 'vitest/config';

// Three projects: `unit` runs pure code next to its source; `rig` runs the suites under test/
// against the real rig (kube-apiserver, Redis, Git over HTTP) that global-rig.ts starts once;
// `failover` runs the Redis failover suites last, alone.

const failoverSuites = ['test/queue/redis-topologies.test.ts', 'test/queue/app-failover.test.ts', 'test/dashboard/status-cache-failover.test.ts'];
export default defineConfig({
  test: {
    reporters: ['default'],
    // `npm test` runs the unit project with --coverage: it measures what the pure tests cover of the
    // product's code and fails below these floors, set a little under what the suite met when they
    // were set (docs/development.md). The rig suites run the product in child processes, so they are
    // not counted.
    coverage: {
      provider: 'v8',
      include: ['libs/*/src/**/*.ts', 'apps/*/src/**/*.ts'],
      exclude: ['**/*.test.ts', 'libs/testing/**', '**/index.ts'],
      reporter: ['text-summary'],
      thresholds: { statements: 37, branches: 35, functions: 36, lines: 39 },
    },
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
          exclude: failoverSuites,
          environment: 'node',
          globalSetup: ['test/setup/global-rig.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          pool: 'forks',
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          // The Redis failover suites kill primaries and wait for replicas to take over: they start
          // their own Redis and control planes, and run last, one at a time, so that no other suite's
          // load stretches a failover past what they time (redis-topologies stalled when it shared
          // the machine with app-failover; the stall is left open in issue 17).
          name: 'failover',
          include: failoverSuites,
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 300_000,
          pool: 'forks',
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
