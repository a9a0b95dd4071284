import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** ReconcilerMetricSet holds every metric the reconciler exports, in one registry of its own. */
export interface ReconcilerMetricSet {
  registry: Registry;
  reconcileDuration: Histogram<'kind' | 'cluster' | 'result'>;
  commitToLive: Histogram<'cluster' | 'origin'>;
  gitPollDuration: Histogram<'source' | 'outcome'>;
  gitPollErrors: Counter<'source'>;
  driftHealed: Counter<'cluster'>;
  resyncChecks: Counter<'cluster' | 'result'>;
  kubeRequests: Counter<'cluster' | 'verb' | 'code'>;
  kubeRequestErrors: Counter<'cluster' | 'verb' | 'code'>;
  kubeRequestDuration: Histogram<'cluster' | 'verb'>;
  queueDepth: Gauge<'cluster' | 'state'>;
  queueWait: Gauge<'cluster' | 'quantile'>;
  driftItems: Gauge<'cluster'>;
  objects: Gauge<'cluster' | 'ready'>;
  storageMigrated: Gauge<'cluster' | 'crd'>;
  storageMigrationTotal: Gauge<'cluster' | 'crd'>;
  gitHostPosts: Counter<'provider' | 'result'>;
  renderSandboxIsolated: Gauge;
  syncWindowHeldSeconds: Counter<'cluster'>;
  syncWindowHolding: Gauge<'cluster'>;
  rolloutWaveDuration: Histogram<'source' | 'wave'>;
  rolloutsHalted: Counter<'source' | 'wave'>;
}

const fast = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const slow = [0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800];

/**
 * createMetricSet defines the metrics in a fresh registry (never prom-client's global one), so
 * two reconcilers in one process, as tests run them, do not collide.
 */
export function createMetricSet(): ReconcilerMetricSet {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'tidemark_reconciler_' });
  const registers = [registry];
  return {
    registry,
    reconcileDuration: new Histogram({ name: 'tidemark_reconcile_duration_seconds', help: 'Time of one pipeline run, by the kind of the object, its cluster and how the run ended.', labelNames: ['kind', 'cluster', 'result'], buckets: fast, registers }),
    commitToLive: new Histogram({ name: 'tidemark_commit_to_live_seconds', help: 'From the commit time (origin="commit") or the webhook that announced it (origin="webhook") until the changed object is Ready on the cluster.', labelNames: ['cluster', 'origin'], buckets: slow, registers }),
    gitPollDuration: new Histogram({ name: 'tidemark_git_fetch_duration_seconds', help: 'One poll of a source: the ref lookup, the fetch when it moved (outcome="fetched") and the tree diff.', labelNames: ['source', 'outcome'], buckets: fast, registers }),
    gitPollErrors: new Counter({ name: 'tidemark_git_fetch_errors_total', help: 'Polls of a source that failed.', labelNames: ['source'], registers }),
    driftHealed: new Counter({ name: 'tidemark_drift_healed_items_total', help: 'Drifted fields re-applied from Git.', labelNames: ['cluster'], registers }),
    resyncChecks: new Counter({ name: 'tidemark_resync_checks_total', help: 'Due resyncs the sweep looked at: unchanged (rescheduled, no run) or changed (given a resync job).', labelNames: ['cluster', 'result'], registers }),
    kubeRequests: new Counter({ name: 'tidemark_kube_requests_total', help: 'Requests to a cluster API server, by verb (apply, apply-dry-run, get, post, put, delete, patch) and HTTP status code.', labelNames: ['cluster', 'verb', 'code'], registers }),
    kubeRequestErrors: new Counter({ name: 'tidemark_kube_request_errors_total', help: 'Requests to a cluster API server answered with a status of 400 or more.', labelNames: ['cluster', 'verb', 'code'], registers }),
    kubeRequestDuration: new Histogram({ name: 'tidemark_kube_request_duration_seconds', help: 'Time of one request to a cluster API server.', labelNames: ['cluster', 'verb'], buckets: fast, registers }),
    queueDepth: new Gauge({ name: 'tidemark_queue_jobs', help: 'Jobs in a cluster queue per state (read from Redis, so every replica reports the same figure).', labelNames: ['cluster', 'state'], registers }),
    queueWait: new Gauge({ name: 'tidemark_queue_wait_seconds', help: 'Wait from enqueue to the start of a run over the last 1,000 jobs, as quantiles.', labelNames: ['cluster', 'quantile'], registers }),
    driftItems: new Gauge({ name: 'tidemark_drift_items', help: 'Drift items left in place (report policy) on a cluster, from the status store.', labelNames: ['cluster'], registers }),
    objects: new Gauge({ name: 'tidemark_objects', help: 'Objects in the status store per cluster, by whether their verdict is Ready.', labelNames: ['cluster', 'ready'], registers }),
    storageMigrated: new Gauge({ name: 'tidemark_storage_migration_migrated_objects', help: 'Objects of a CRD rewritten in its storage version by the running (or last) storage version migration.', labelNames: ['cluster', 'crd'], registers }),
    storageMigrationTotal: new Gauge({ name: 'tidemark_storage_migration_objects', help: 'Objects of a CRD the running (or last) storage version migration has to rewrite, as far as known.', labelNames: ['cluster', 'crd'], registers }),
    renderSandboxIsolated: new Gauge({ name: 'tidemark_render_sandbox_isolated', help: '1 when renderers (kustomize, helm, sops, plugins) run in user and network namespaces of their own; 0 when the kernel or the seccomp profile refuses them, so the sandbox is a clean environment and a refusing proxy only.', registers }),
    syncWindowHeldSeconds: new Counter({ name: 'tidemark_sync_window_held_seconds_total', help: 'Time a cluster spent held by its sync windows for every source (a deny window open, or outside all its allow windows), counted by the reconciler that checks the windows.', labelNames: ['cluster'], registers }),
    syncWindowHolding: new Gauge({ name: 'tidemark_sync_window_holding', help: '1 while sync windows hold a cluster for every source, else 0.', labelNames: ['cluster'], registers }),
    rolloutWaveDuration: new Histogram({ name: 'tidemark_rollout_wave_duration_seconds', help: 'One wave of a rollout, from its first cluster reached to its last gate passed (soak not included).', labelNames: ['source', 'wave'], buckets: slow, registers }),
    rolloutsHalted: new Counter({ name: 'tidemark_rollouts_halted_total', help: 'Rollouts halted by a failed or timed-out health gate, by source and wave.', labelNames: ['source', 'wave'], registers }),
    gitHostPosts: new Counter({ name: 'tidemark_git_host_posts_total', help: 'Commit statuses sent to a Git host, by provider and result (ok, failed: after the retries, or dropped).', labelNames: ['provider', 'result'], registers }),
  };
}
