import type { ClusterConnection } from './connection';

/** PodLogOptions bound what is read: the last lines, and at most so many bytes of them. */
export interface PodLogOptions {
  container: string;
  /** @defaultValue 50 */
  tailLines?: number;
  /** @defaultValue 16_384 */
  limitBytes?: number;
  /** @defaultValue 10_000 */
  timeoutMs?: number;
}

/**
 * readPodLog reads the last lines of one container's log. Both bounds go to the API server
 * (tailLines, limitBytes), and no more than limitBytes is read even from a server that ignores
 * them; the text is the cluster's, unscrubbed: the caller decides what may be shown.
 */
export async function readPodLog(connection: ClusterConnection, namespace: string, pod: string, options: PodLogOptions): Promise<string> {
  const limitBytes = options.limitBytes ?? 16_384;
  return connection.client.requestText({
    method: 'GET',
    path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`,
    query: { container: options.container, tailLines: options.tailLines ?? 50, limitBytes },
    timeoutMs: options.timeoutMs ?? 10_000,
    maxBytes: limitBytes,
    what: `read the log of ${namespace}/${pod} (${options.container}) on ${connection.name}`,
  });
}
