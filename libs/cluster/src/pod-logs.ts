import type { ClusterConnection } from './connection';

/** PodLogOptions bound a log read. */
export interface PodLogOptions {
  /** @defaultValue 20 */
  tailLines?: number;
  /** @defaultValue 4096 */
  maxBytes?: number;
  /** @defaultValue 10_000 */
  timeoutMs?: number;
}

/**
 * readPodLogTail reads the last lines of a pod's first container log, bounded on both ends: the
 * API server is asked for `tailLines` lines and `limitBytes` bytes, and no more than that is read.
 * The text is the container's own output: callers scrub it before showing it.
 */
export async function readPodLogTail(connection: ClusterConnection, namespace: string, pod: string, options: PodLogOptions = {}): Promise<string> {
  const maxBytes = options.maxBytes ?? 4096;
  return connection.client.requestText({
    method: 'GET',
    path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`,
    query: { tailLines: options.tailLines ?? 20, limitBytes: maxBytes },
    what: `read the log of pod ${namespace}/${pod} on ${connection.name}`,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxBytes,
  });
}
