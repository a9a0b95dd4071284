import type { ClusterConnection } from '@tidemark/cluster';
import { runnable, type Logger, type RolloutRecord, type Runnable } from '@tidemark/contracts';
import type { CommitStatus } from './commit-status';
import { StatusPoster } from './status-poster';
import { waveStatuses } from './rollout-wave-status';
import type { GitHostConfig } from './git-hosts-config';
import { targetOf } from './host-token';

/** RolloutCommitStatusesOptions: the configured Git hosts and where a token's Secret is read. */
export interface RolloutCommitStatusesOptions {
  gitHosts: readonly GitHostConfig[];
  connectionFor(cluster: string): ClusterConnection;
  log: Logger;
  /** Told of every post (the metrics count them). */
  onPosted?: (provider: string, ok: boolean) => void;
  /** Post pacing. @defaultValue StatusPoster's */
  poster?: { minIntervalMs?: number };
}

/** RolloutCommitStatuses turns each rollout record the driver writes into one commit status per wave. */
export interface RolloutCommitStatuses {
  recorded(record: RolloutRecord): void;
  /** idle resolves once nothing is queued or in flight (tests). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** At most this many wave statuses are remembered (what was last posted), oldest forgotten first. */
const rememberedStatuses = 2_000;

/** createRolloutCommitStatuses is the wave statuses as a part; stop waits for the posts in flight. */
export function createRolloutCommitStatuses(deps: Omit<RolloutCommitStatusesOptions, 'gitHosts'>, gitHosts: readonly GitHostConfig[]): Runnable<RolloutCommitStatuses> {
  return runnable('rollout commit statuses', () => startRolloutCommitStatuses({ ...deps, gitHosts }));
}

/**
 * startRolloutCommitStatuses posts, for a source with a Git host, one status per wave on the commit
 * a rollout carries, named `<context>/wave/<wave>` ("canary: Ready on 1 cluster", "prod: waiting
 * for soak until …"), each time the driver writes the rollout record, and only what changed. A
 * newer revision that supersedes the rollout ends the old commit's unfinished waves as superseded.
 * Only the process holding the driver's lease writes records, so only it posts; a process that
 * takes the lease over may post a wave's status again, which the host simply keeps.
 */
export function startRolloutCommitStatuses(options: RolloutCommitStatusesOptions): RolloutCommitStatuses {
  const hosts = new Map(options.gitHosts.map((host) => [host.source, host]));
  const posted = new Map<string, string>();
  const carried = new Map<string, RolloutRecord>();
  const poster = new StatusPoster({
    ...(options.poster?.minIntervalMs === undefined ? {} : { minIntervalMs: options.poster.minIntervalMs }),
    onResult: (status, result) => {
      const host = [...hosts.values()].find((candidate) => status.context.startsWith(`${candidate.context}/wave/`));
      options.onPosted?.(host?.provider ?? 'unknown', result.ok);
      const fields = { context: status.context, sha: status.sha, state: status.state, attempts: result.attempts, status: result.status };
      if (result.ok) options.log.info(fields, 'wave commit status posted');
      else options.log.warn({ ...fields, err: result.error }, 'wave commit status not posted');
    },
  });

  function post(host: GitHostConfig, status: CommitStatus): void {
    const key = `${status.sha}/${status.context}`;
    const said = `${status.state} ${status.description}`;
    if (posted.get(key) === said) return;
    posted.delete(key);
    posted.set(key, said);
    while (posted.size > rememberedStatuses) posted.delete(posted.keys().next().value!);
    poster.enqueue(status, () => targetOf(host, options.connectionFor));
  }

  function statusesOf(host: GitHostConfig, record: RolloutRecord): CommitStatus[] {
    const targetUrl = host.dashboardUrl ? { targetUrl: `${host.dashboardUrl}/rollouts` } : {};
    return waveStatuses(record).map((wave) => ({ sha: record.revision, context: `${host.context}/wave/${wave.wave}`, state: wave.state, description: wave.description, ...targetUrl }));
  }

  return {
    recorded(record) {
      const host = hosts.get(record.source);
      if (!host) return;
      const before = carried.get(record.source);
      carried.set(record.source, record);
      if (before && before.revision !== record.revision) {
        // The older commit's waves that had no verdict yet never will: say superseded, not pending forever.
        for (const status of statusesOf(host, before)) {
          if (status.state === 'pending') post(host, { ...status, state: 'superseded', description: `${status.description.split(':')[0]}: superseded by ${record.revision.slice(0, 7)}` });
        }
      }
      for (const status of statusesOf(host, record)) post(host, status);
    },
    idle: () => poster.idle(),
    stop: () => poster.stop(),
  };
}
