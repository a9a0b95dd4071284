import { randomBytes } from 'node:crypto';
import type { KubernetesManifest } from '@tidemark/contracts';
import type { ClusterConnection } from './connection';
import { ApiError } from './api-error';

export interface EventInput {
  type: 'Normal' | 'Warning';
  /** PascalCase, e.g. Created, Pruned, ReconcileFailed. */
  reason: string;
  message: string;
  /**
   * A stable name makes the Event once however often it is recorded: a second create of the name
   * is refused (409), which recordEvent treats as recorded. @defaultValue a random name per call
   */
  name?: string;
}

/**
 * recordEvent creates a core/v1 Event about an object, so `kubectl describe` and
 * `kubectl get events` show what Tidemark did. Events of cluster-scoped objects go to `default`.
 */
export async function recordEvent(connection: ClusterConnection, about: KubernetesManifest, event: EventInput): Promise<void> {
  const namespace = about.metadata.namespace || 'default';
  const now = new Date().toISOString();
  const name = event.name ?? `${about.metadata.name}.${randomBytes(8).toString('hex')}`;
  await connection.client.request({
    method: 'POST',
    path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`,
    body: {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: {
        apiVersion: about.apiVersion,
        kind: about.kind,
        name: about.metadata.name,
        namespace: about.metadata.namespace,
        uid: about.metadata.uid,
      },
      type: event.type,
      reason: event.reason,
      message: event.message.slice(0, 1024),
      source: { component: connection.fieldManager },
      reportingComponent: connection.fieldManager,
      reportingInstance: connection.fieldManager,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    },
    what: `record event ${event.reason} on ${connection.name}`,
  }).catch((error: unknown) => {
    if (!(event.name && error instanceof ApiError && error.status === 409)) throw error;
  });
}
