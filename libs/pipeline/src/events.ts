import { recordEvent, type EventInput } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import type { PipelineDependencies } from './dependencies';
import type { ReconcileRun } from './run';

/** recordEvents emits up to 20 events about an object; a failure to record one is logged, never a reconcile failure. */
export async function recordEvents(run: ReconcileRun, deps: PipelineDependencies, about: KubernetesManifest, events: readonly EventInput[]): Promise<void> {
  for (const event of events.slice(0, 20)) {
    try {
      await recordEvent(run.reportingConnection, about, event);
    } catch (error) {
      deps.log?.warn({ objectKey: run.job.objectKey, cluster: run.job.cluster, err: String(error) }, 'could not record an event');
    }
  }
}
