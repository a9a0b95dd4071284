import type { ClusterConnection } from '@tidemark/cluster';
import { messageOf, runnable, settlementOf, verdictOf, type Logger, type RecordKeys, type RedisClient, type ReconcileJob, type Runnable, type VerdictInput } from '@tidemark/contracts';
import { CommitStatusRecord, type ObjectProgress, type StatusClaim } from './commit-status-record';
import type { CommitStatus } from './commit-status';
import type { PostResult } from './host-request';
import { StatusPoster } from './status-poster';
import type { GitHostConfig } from './git-hosts-config';
import { targetOf } from './host-token';

/**
 * RunObservation is what commit statuses read of a finished run: the pipeline's
 * ReconcileObservation, with the status record the run wrote.
 */
export interface RunObservation {
  source: string;
  cluster: string;
  objectKey: string;
  revision: string;
  /** How the run ended ('deleted', 'skipped', 'unchanged', ...: the pipeline's ReconcileResult). */
  result: string;
  /** The status record the run wrote; none when it wrote none. */
  record?: VerdictInput | undefined;
}

/** CommitStatusesOptions: the configured Git hosts, the shared record, and where a token's Secret lives. */
export interface CommitStatusesOptions {
  gitHosts: readonly GitHostConfig[];
  redis: RedisClient;
  keys: RecordKeys;
  connectionFor(cluster: string): ClusterConnection;
  log: Logger;
  /** Told of every post (the metrics count them). */
  onPosted?: (provider: string, ok: boolean) => void;
  /** Post pacing and retries. @defaultValue StatusPoster's */
  poster?: { minIntervalMs?: number; attempts?: number; timeoutMs?: number };
}

/** CommitStatuses is the reconciler's side of commit statuses: the poller says what a commit changed, runs say how it went. */
export interface CommitStatuses {
  /** pickedUp: a poll routed these jobs of a new revision; each cluster that got some gets `pending`. */
  pickedUp(source: string, revision: string, jobs: readonly ReconcileJob[]): Promise<void>;
  /** observer hears every pipeline run; runs of a tracked commit move it to success or failure. */
  readonly observer: { reconciled(observation: RunObservation): void };
  /** idle resolves once nothing is being recorded or posted (tests). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** createCommitStatuses is the commit statuses as a part: nothing posts until it started; stop waits for what is in flight. */
export function createCommitStatuses(deps: Omit<CommitStatusesOptions, 'gitHosts'>, gitHosts: readonly GitHostConfig[]): Runnable<CommitStatuses> {
  return runnable('commit statuses', () => startCommitStatuses({ ...deps, gitHosts }));
}

/**
 * startCommitStatuses posts one commit status per cluster for each commit a source's poll picks
 * up: pending when its jobs are queued, then success when every object it changed there is
 * applied and Ready, or failure with the first reason (a stalled object, a failed health check).
 * Which replica posts which state is decided by the Redis record (CommitStatusRecord), so each
 * state goes out once per cluster per commit. Posting runs off the reconcile's path, paced and
 * retried by StatusPoster: a slow or dead Git host is logged and counted, never waited for.
 */
export function startCommitStatuses(options: CommitStatusesOptions): CommitStatuses {
  if (options.gitHosts.length === 0) return noCommitStatuses;
  const hosts = new Map(options.gitHosts.map((host) => [host.source, host]));
  const record = new CommitStatusRecord(options.redis, options.keys);
  const { log } = options;
  const poster = new StatusPoster({
    ...(options.poster?.minIntervalMs === undefined ? {} : { minIntervalMs: options.poster.minIntervalMs }),
    post: { ...(options.poster?.attempts ? { attempts: options.poster.attempts } : {}), ...(options.poster?.timeoutMs ? { timeoutMs: options.poster.timeoutMs } : {}) },
    onResult: (status, result) => reportPost(status, result),
  });
  const inFlight = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    const settled = work.catch((error: unknown) => log.warn({ err: messageOf(error) }, 'commit status bookkeeping failed'));
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
  };
  const providerOf = new Map<string, string>();

  function reportPost(status: CommitStatus, result: PostResult): void {
    const provider = providerOf.get(status.context) ?? 'unknown';
    options.onPosted?.(provider, result.ok);
    const fields = { context: status.context, sha: status.sha, state: status.state, attempts: result.attempts, status: result.status };
    if (result.ok) log.info(fields, 'commit status posted');
    else log.warn({ ...fields, err: result.error }, 'commit status not posted');
  }

  function post(host: GitHostConfig, revision: string, cluster: string, claim: StatusClaim): void {
    const context = `${host.context}/${cluster}`;
    providerOf.set(context, host.provider);
    poster.enqueue({
      sha: revision, state: claim.state, context,
      description: describe(claim, cluster),
      ...(host.dashboardUrl ? { targetUrl: `${host.dashboardUrl}/objects?source=${encodeURIComponent(host.source)}&cluster=${encodeURIComponent(cluster)}` } : {}),
    }, () => targetOf(host, options.connectionFor),
    // A pending status still queued when another replica has claimed the final one would arrive after it and hide it.
    claim.state === 'pending' ? () => record.finished({ source: host.source, revision, cluster }) : undefined);
  }

  async function ran(observation: RunObservation): Promise<void> {
    const host = hosts.get(observation.source);
    if (!host || observation.result === 'skipped' || observation.result === 'unchanged') return;
    const { progress, reason } = progressOf(observation);
    const claim = await record.ran(observation, observation.objectKey, progress, reason);
    if (claim) post(host, observation.revision, observation.cluster, claim);
  }

  return {
    async pickedUp(source, revision, jobs) {
      const host = hosts.get(source);
      if (!host) return;
      const byCluster = new Map<string, string[]>();
      for (const job of jobs) if (job.revision === revision) (byCluster.get(job.cluster) ?? byCluster.set(job.cluster, []).get(job.cluster)!).push(job.objectKey);
      for (const [cluster, objectKeys] of byCluster) {
        // A failure to record must not stop the poll: the commit then gets no status on that cluster.
        const claim = await record.pickedUp({ source, revision, cluster }, objectKeys).catch((error: unknown) => {
          log.warn({ source, revision, cluster, err: messageOf(error) }, 'commit status record failed');
          return undefined;
        });
        if (!claim) continue;
        post(host, revision, cluster, claim);
        // Older commits whose pending objects this one now carries would stay pending forever: end them.
        const superseded = await record.supersede({ source, revision, cluster }, objectKeys).catch((error: unknown) => {
          log.warn({ source, revision, cluster, err: messageOf(error) }, 'commit status record failed');
          return [];
        });
        for (const older of superseded) post(host, older.revision, cluster, older.claim);
      }
    },
    observer: { reconciled: (observation) => track(ran(observation)) },
    async idle() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
      await poster.idle();
    },
    async stop() {
      await Promise.all([...inFlight]);
      await poster.stop();
    },
  };
}

/** noCommitStatuses stands in when no source has a Git host. */
const noCommitStatuses: CommitStatuses = {
  pickedUp: async () => {},
  observer: { reconciled: () => {} },
  idle: async () => {},
  stop: async () => {},
};

/** describe is the status's one line: what is being applied, that all of it is Ready, or why not. */
function describe(claim: StatusClaim, cluster: string): string {
  const objects = `${claim.objects} object${claim.objects === 1 ? '' : 's'}`;
  if (claim.state === 'pending') return `Applying ${objects} on ${cluster}`;
  if (claim.state === 'success') return `${objects} applied and Ready on ${cluster}`;
  if (claim.state === 'superseded') return `Superseded by ${claim.supersededBy?.slice(0, 7) ?? 'a newer commit'} before it was applied on ${cluster}`;
  return claim.reason || `Failed on ${cluster}`;
}

/**
 * progressOf is what a run made of an object, from the record the run wrote and its verdict's
 * settlement alone (settlementOf): done when Ready (the run applied this revision) or gone, failed
 * with the verdict's reason when no retry changes it, else pending. A run that wrote no record
 * (its write failed; the queue retries it) is pending.
 */
function progressOf(observation: RunObservation): { progress: ObjectProgress; reason?: string } {
  if (observation.result === 'deleted') return { progress: 'done' };
  if (!observation.record) return { progress: 'pending' };
  const verdict = verdictOf(observation.record);
  const progress = settlementOf(verdict);
  return progress === 'failed' ? { progress, reason: `${verdict.reason}: ${verdict.message}` } : { progress };
}
