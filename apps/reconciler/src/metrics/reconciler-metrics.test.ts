import { describe, expect, it } from 'vitest';
import type { ReconcileObservation } from '@tidemark/pipeline';
import { ReconcilerMetrics } from './reconciler-metrics';

const revision = 'c'.repeat(40);
const observation = (overrides: Partial<ReconcileObservation>): ReconcileObservation => ({
  cluster: 'east', source: 's', objectKey: 'tidemark.dev/WebApp/ns/shop', revision, kind: 'WebApp',
  result: 'ready', stage: 'result', durationMs: 40, becameReady: false, driftReported: 0, driftHealed: 0, ...overrides,
});

describe('ReconcilerMetrics', () => {
  // Commit-to-live needs Redis: test/observability/commit-clock.test.ts.
  it('exports reconcile durations, healed drift and API requests by verb and code', async () => {
    const metrics = new ReconcilerMetrics();
    metrics.observer.reconciled(observation({ becameReady: true, driftHealed: 2 }));
    metrics.observer.reconciled(observation({ result: 'terminal', kind: 'Deployment' }));
    const observe = metrics.kubeObserver('east');
    observe?.({ method: 'PATCH', path: '/api/v1/namespaces/a/configmaps/x', status: 200, durationMs: 5, apply: true, dryRun: false });
    observe?.({ method: 'PATCH', path: '/api/v1/namespaces/a/configmaps/x', status: 409, durationMs: 5, apply: true, dryRun: true });
    observe?.({ method: 'GET', path: '/api/v1/namespaces/a/configmaps/x', status: 404, durationMs: 1, apply: false, dryRun: false });
    const text = await metrics.render();
    expect(text).toContain('tidemark_reconcile_duration_seconds_count{kind="WebApp",cluster="east",result="ready"} 1');
    expect(text).toContain('tidemark_reconcile_duration_seconds_count{kind="Deployment",cluster="east",result="terminal"} 1');
    expect(text).toContain('tidemark_drift_healed_items_total{cluster="east"} 2');
    expect(text).toContain('tidemark_kube_requests_total{cluster="east",verb="apply",code="200"} 1');
    expect(text).toContain('tidemark_kube_request_errors_total{cluster="east",verb="apply-dry-run",code="409"} 1');
    expect(text).toContain('tidemark_kube_request_errors_total{cluster="east",verb="get",code="404"} 1');
  });

  it('times each rollout wave that passed and counts halted rollouts', async () => {
    const metrics = new ReconcilerMetrics();
    metrics.rolloutNotice('apps', { kind: 'wave-passed', wave: 'canary', durationMs: 42_000 });
    metrics.rolloutNotice('apps', { kind: 'halted', wave: 'prod' });
    metrics.rolloutNotice('apps', { kind: 'complete' });
    const text = await metrics.render();
    expect(text).toContain('tidemark_rollout_wave_duration_seconds_sum{source="apps",wave="canary"} 42');
    expect(text).toContain('tidemark_rollouts_halted_total{source="apps",wave="prod"} 1');
  });

  it('times polls and counts failed ones per source', async () => {
    const metrics = new ReconcilerMetrics();
    let fail = false;
    const source = metrics.instrument({
      name: 'repo', spec: { intervalMs: 1000, jitter: 0 },
      poll: async () => {
        if (fail) throw new Error('unreachable');
        return { source: 'repo', revision, moved: true, changes: [], errors: [], durationMs: 3, fetchedObjects: 7 };
      },
    });
    await source.poll();
    fail = true;
    await expect(source.poll()).rejects.toThrow('unreachable');
    const text = await metrics.render();
    expect(text).toContain('tidemark_git_fetch_duration_seconds_count{source="repo",outcome="fetched"} 1');
    expect(text).toContain('tidemark_git_fetch_errors_total{source="repo"} 1');
  });

  it('labels a poll by whether the ref moved, not by what this very poll received', async () => {
    const metrics = new ReconcilerMetrics();
    const results = [
      { moved: true, fetchedObjects: 0 }, // the head was fetched ahead (at start): still the poll that moved the source
      { moved: false, fetchedObjects: 0 },
      { moved: false, fetchedObjects: 0 },
    ];
    const source = metrics.instrument({
      name: 'repo', spec: { intervalMs: 1000, jitter: 0 },
      poll: async () => ({ source: 'repo', revision, changes: [], errors: [], durationMs: 3, ...results.shift()! }),
    });
    for (let poll = 0; poll < 3; poll += 1) await source.poll();
    const text = await metrics.render();
    expect(text).toContain('tidemark_git_fetch_duration_seconds_count{source="repo",outcome="fetched"} 1');
    expect(text).toContain('tidemark_git_fetch_duration_seconds_count{source="repo",outcome="unchanged"} 2');
  });

  it('reads queue depth, wait and drift items when scraped', async () => {
    const metrics = new ReconcilerMetrics();
    const summary = { count: 3, p50: 250, p99: 1_500, max: 2_000, mean: 400 };
    metrics.start({
      clusters: ['east'],
      sourceCacheDir: () => '/nonexistent',
      queues: { figures: async () => [{ cluster: 'east', queueName: 'q', paused: false, depth: { waiting: 4, active: 1, delayed: 2, prioritized: 0, failed: 1 }, waitMs: summary, processingMs: summary, failures: [], failingObjects: 1, failedRuns: 3 }] },
      // How the counts are kept: test/status-store/status-tally.test.ts, on the rig's Redis.
      statusCounts: { counts: async () => new Map([['east', { ready: 1, notReady: 1, drift: 2 }]]) },
    });
    const text = await metrics.render();
    expect(text).toContain('tidemark_queue_jobs{cluster="east",state="waiting"} 4');
    expect(text).toContain('tidemark_queue_wait_seconds{cluster="east",quantile="0.99"} 1.5');
    expect(text).toContain('tidemark_drift_items{cluster="east"} 2');
    expect(text).toContain('tidemark_objects{cluster="east",ready="false"} 1');
    expect(text).toContain('tidemark_objects{cluster="east",ready="true"} 1');
  });
});
