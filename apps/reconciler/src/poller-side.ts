import { messageOf, runnable, Runnables, type ReconcileJob, type Runnable } from '@tidemark/contracts';
import { routePoll, startFullResync } from '@tidemark/fanout';
import { Poller, type PolledSource } from '@tidemark/poller';
import type { ReconcileQueues } from '@tidemark/queue';
import type { TraceSpan } from '@tidemark/tracing';
import type { ReconcilerConfig } from './config';
import type { PushPathMark } from './push-path-marks';
import type { Wiring } from './wiring';

/** pollingRoles are the roles that run the poller: a worker and an agent take jobs only. */
export const pollingRoles: ReadonlySet<ReconcilerConfig['role']> = new Set(['all', 'poller']);

/**
 * pollerFor builds the poller of a polling role (undefined for the others): one leader per source
 * polls, and a poll's changes are routed (libs/fanout, libs/placement) and queued, or left to the
 * rollout driver for a source that rolls out in waves. It is started later (pollerSide), once the
 * workers and Source objects are there; Source objects add their sources to it before.
 */
export function pollerFor(w: Wiring, onRecorded: (source: string) => void): Poller | undefined {
  if (!pollingRoles.has(w.config.role)) return undefined;
  const { log, mark, sources, rollouts, metrics, commitStatuses, queues, rebuild } = w;
  return new Poller({
    redis: w.shared.redis,
    sources: [...sources.values()].map((source) => markedPolls(metrics.instrument(source), mark)),
    prefix: w.shared.recordPrefix,
    tracer: w.tracer,
    onChanges: async (result, span) => {
      mark('poll-read', { source: result.source, revision: result.revision });
      const routed = await routePoll(await rebuild.beforeRoute(result), { source: sources.get(result.source)!, placement: w.placement, clusters: w.clusterTargets, statusStore: w.statusStore });
      // A source that rolls out in waves gets its jobs from the driver, wave by wave.
      const jobs = (await rollouts.governs(result.source, result.revision)) ? [] : routed;
      rollouts.wakeFor(result.source);
      mark('jobs-routed', { source: result.source, revision: result.revision });
      await metrics.changesFound(result, jobs);
      await commitStatuses.pickedUp(result.source, result.revision, jobs);
      await enqueueTraced(queues, jobs, span);
      mark('jobs-enqueued', { source: result.source, revision: result.revision });
      log.info({ source: result.source, revision: result.revision, changes: result.changes.length, errors: result.errors.length, jobs: jobs.length }, 'poll found changes');
      for (const problem of result.errors) log.warn({ source: result.source, problem }, 'source problem');
    },
    onError: (source, error) => log.warn({ source, err: messageOf(error) }, 'poll failed'),
    onRecorded: (source) => {
      // The delivered revision is recorded now: the driver starts its rollout at once.
      rollouts.wakeFor(source);
      onRecorded(source);
    },
  });
}

/** pollerSide starts the poller, then the rollout driver and the periodic full resync; nothing where this role does not poll. */
export function pollerSide(w: Wiring, poller: Poller | undefined): Runnable {
  return runnable('poller', async () => {
    if (!poller) return undefined;
    const parts = new Runnables(w.log);
    try {
      await parts.start(runnable('polls', async () => { await poller.start(); return poller; }));
      await parts.start(runnable('rollout driver', async () => { await w.rollouts.start(); return w.rollouts; }));
      const route = { placement: w.placement, clusters: w.clusterTargets, statusStore: w.statusStore };
      await parts.start(runnable('full resync', () => startFullResync({ redis: w.shared.redis, sources: w.sources, route, queues: w.queues, intervalMs: w.config.fullResyncIntervalMs, log: w.log })));
    } catch (error) {
      await parts.stop();
      throw error;
    }
    return () => parts.stop();
  });
}

/**
 * enqueueTraced queues a poll's jobs in an `enqueue` span under the poll's; each job carries that
 * span's traceparent (only when tracing is on), so its run continues the trace in a worker.
 */
async function enqueueTraced(queues: ReconcileQueues, jobs: readonly ReconcileJob[], poll: TraceSpan): Promise<void> {
  const span = poll.child('enqueue', { 'tidemark.jobs': jobs.length });
  try {
    const traceparent = span.traceparent;
    for (const job of jobs) await queues.enqueue(traceparent ? { ...job, traceparent } : job);
  } catch (error) {
    span.fail(error);
    throw error;
  } finally {
    span.end();
  }
}

/** markedPolls tells `mark` when each poll of the source starts. */
function markedPolls(source: PolledSource, mark: PushPathMark): PolledSource {
  return { name: source.name, spec: source.spec, poll: (options) => {
    mark('poll-started', { source: source.name });
    return source.poll(options);
  } };
}
