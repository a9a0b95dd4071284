import { inSpan, noSpan, noTracing, type TraceSpan } from '@tidemark/tracing';
import type { ChangeSetEntry, ChangeSetOptions } from '@tidemark/cluster';
import type { KubernetesManifest, ReconcileJob } from '@tidemark/contracts';
import type { PipelineDependencies } from './dependencies';
import type { ReconcileRun } from './run';

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
