import { recordEvent, type EventInput } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import { aggregateEvents } from './aggregate-events';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';

/**
 * recordEvents emits what a run has to say about an object as one aggregated Event (none when
 * there is nothing); a failure to record it is logged, never a reconcile failure.
 */
export async function recordEvents(run: Pick<ReconcileRun, 'job' | 'reportingConnection'>, deps: Pick<PipelineDependencies, 'log'>, about: KubernetesManifest, events: readonly EventInput[]): Promise<void> {
  const event = aggregateEvents(events);
  if (!event) return;
  try {
    await recordEvent(run.reportingConnection, about, event);
  } catch (error) {
    deps.log?.warn({ objectKey: run.job.objectKey, cluster: run.job.cluster, err: String(error) }, 'could not record an event');
  }
}
