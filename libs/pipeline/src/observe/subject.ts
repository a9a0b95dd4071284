import { describeObject } from '@tidemark/contracts';
import type { ReconcileRun } from '../run';

/**
 * subjectOf names the run's object for messages, `Kind namespace/name`, with the namespace
 * Tidemark applies it in: never the internal object key.
 */
export function subjectOf(run: Pick<ReconcileRun, 'ref' | 'object' | 'live' | 'previous'>): string {
  const namespace = run.object?.metadata.namespace ?? run.live?.metadata.namespace ?? run.previous?.namespace ?? run.ref.namespace;
  return describeObject({ kind: run.ref.kind, namespace: namespace ?? '', name: run.ref.name });
}
