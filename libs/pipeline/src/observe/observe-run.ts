import { NotReadyError, TerminalError, findCondition, type ReconcileFailure, type KubernetesManifest, type Logger, type ReconcileJob } from '@tidemark/contracts';
import { inSpan, noSpan, noTracing, type TraceSpan } from '@tidemark/tracing';
import type { ChangeSetEntry, ChangeSetOptions } from '@tidemark/cluster';
import type { Health } from '@tidemark/kinds';
import type { PipelineDependencies } from '../dependencies';
import { isDeleted, isSkipped, type ReconcileRun } from '../run';
import { unreadySince } from '../health/stage-health';
import type { ReconcileResult } from './observer';

/** observeRun tells the observer, if any, how a run ended. */
export function observeRun(run: ReconcileRun, deps: PipelineDependencies, failure?: ReconcileFailure): void {
  if (!deps.observer) return;
  const result = failure ? failureResult(failure) : successResult(run);
  deps.observer.reconciled({
    cluster: run.job.cluster,
    source: run.job.source,
    objectKey: run.job.objectKey,
    revision: run.job.revision,
    kind: run.ref.kind,
    result,
    stage: run.stage,
    durationMs: Date.now() - run.startedAt.getTime(),
    becameReady: result === 'ready' && !wasReadyAt(run),
    ...(failure || isSkipped(run) ? {} : { driftReported: run.outcome?.applied.drift.reported.length ?? 0 }),
    driftHealed: run.outcome?.applied.drift.healed.length ?? 0,
    ...(run.finalized ? { record: run.finalized } : {}),
  });
}

function failureResult(failure: ReconcileFailure): ReconcileResult {
  if (failure instanceof TerminalError) return 'terminal';
  if (failure instanceof NotReadyError) return 'not-ready';
  return 'transient';
}

function successResult(run: ReconcileRun): ReconcileResult {
  if (isSkipped(run)) return 'skipped';
  if (isDeleted(run) || !run.desired) return 'deleted';
  return run.outcome?.health.status === 'Ready' ? 'ready' : 'progressing';
}

/** wasReadyAt: the previous record says Ready at this very revision, so this run is a resync, not the commit going live. */
export function wasReadyAt(run: ReconcileRun): boolean {
  const previous = run.previous;
  if (!previous || previous.lastAppliedRevision !== run.job.revision) return false;
  return findCondition(previous.conditions, 'Ready')?.status === 'True';
}

/**
 * startRunSpan opens the run's span under the trace its job carries (the poll that queued it),
 * with what the run is about. Ids and names only: never an object's body or a Secret's value.
 */
export function startRunSpan(job: ReconcileJob, deps: PipelineDependencies): TraceSpan {
  return (deps.tracer ?? noTracing).start('reconcile', {
    ...(job.traceparent ? { parent: job.traceparent } : {}),
    attributes: { 'tidemark.source': job.source, 'tidemark.revision': job.revision, 'tidemark.cluster': job.cluster, 'tidemark.object': job.objectKey, 'tidemark.reason': job.reason },
  });
}

/** traced runs one stage in a child span of the run's. */
export function traced<T>(run: ReconcileRun, stage: string, body: (span: TraceSpan) => Promise<T>): Promise<T> {
  return inSpan(run.span, stage, undefined, body);
}

/** tracedSync is traced for a stage that does not wait. */
export function tracedSync<T>(run: ReconcileRun, stage: string, body: () => T): T {
  const span = run.span.child(stage);
  try {
    return body();
  } catch (error) {
    span.fail(error);
    throw error;
  } finally {
    span.end();
  }
}

/** tracedApplies gives each object's apply a span of its own (kind, namespace, name, action), when tracing is on. */
export function tracedApplies(parent: TraceSpan): Pick<ChangeSetOptions, 'observeApply'> {
  if (parent === noSpan) return {};
  return {
    observeApply: (object: KubernetesManifest, apply: () => Promise<ChangeSetEntry>) => inSpan(parent, 'apply object', {
      'k8s.object.kind': object.kind, 'k8s.object.namespace': object.metadata.namespace, 'k8s.object.name': object.metadata.name,
    }, async (span) => {
      const entry = await apply();
      span.set({ 'tidemark.action': entry.action });
      return entry;
    }),
  };
}

/**
 * traceHealthWait ends the object's wait for a verdict with a `health wait` span under the run's
 * health stage: from when it stopped being Ready at this spec (earlier runs of the same job, which
 * requeued while it progressed) to this run's verdict; a run that finds it at once waits for no
 * time. A run that is still waiting says nothing yet: the wait is one span, sent when it ends.
 */
export function traceHealthWait(run: ReconcileRun, stage: TraceSpan, health: Health, now: Date): void {
  if (stage === noSpan || health.status === 'Progressing') return;
  const since = new Date(Math.min(now.getTime(), Date.parse(unreadySince(run, now))));
  const live = run.live;
  const span = stage.child('health wait', {
    'tidemark.source': run.job.source, 'tidemark.revision': run.job.revision, 'tidemark.cluster': run.job.cluster, 'tidemark.object': run.job.objectKey,
    'k8s.object.kind': live?.kind, 'k8s.object.namespace': live?.metadata.namespace, 'k8s.object.name': live?.metadata.name,
    'tidemark.health': health.status, 'tidemark.health.waited_ms': now.getTime() - since.getTime(),
  }, since);
  span.end();
}

/**
 * withRunLog gives the stages a logger that adds the object key, cluster, source, revision and
 * current stage to every line, so any line can be traced to one run without each stage
 * repeating them. The stage is read when the line is written, not when the run starts.
 */
export function withRunLog(run: ReconcileRun, deps: PipelineDependencies): PipelineDependencies {
  const log = deps.log;
  if (!log) return deps;
  const context = () => ({ objectKey: run.job.objectKey, cluster: run.job.cluster, source: run.job.source, revision: run.job.revision, stage: run.stage });
  const scoped: Logger = {
    info: (fields, message) => log.info({ ...context(), ...fields }, message),
    warn: (fields, message) => log.warn({ ...context(), ...fields }, message),
  };
  return { ...deps, log: scoped };
}

