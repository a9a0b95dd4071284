import { createInterface } from 'node:readline';
import type { KubernetesManifest } from '@tidemark/contracts';
import type { ClusterConnection } from './connection';
import { ApiError, type KubeStatus } from './api-error';
import { resourcePath } from './resource-path';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface WatchOptions {
  apiVersion: string;
  kind: string;
  /** '' or absent watches every namespace. */
  namespace?: string;
  /** Called for each change; `initial` marks objects that were there when the list was taken. */
  onEvent(type: WatchEventType, object: KubernetesManifest, initial: boolean): void;
  onError?(error: unknown): void;
  /**
   * Told where the watch stands, for a cache's bookkeeping: a list begins (what follows with
   * `initial` replaces everything), a list or bookmark reached a version, a stream is connected,
   * or the stream broke and changes may be missed until it resumes.
   */
  onProgress?(progress: WatchProgress): void;
  /** Longest wait between reconnects. @defaultValue 30_000 */
  maxBackoffMs?: number;
}

export type WatchProgress =
  | { type: 'listing' }
  | { type: 'listed'; resourceVersion: string }
  | { type: 'streaming' }
  | { type: 'bookmark'; resourceVersion: string }
  | { type: 'interrupted' };

export interface RunningWatch {
  /** Resolves after the first list, so callers know they see every later change. */
  synced: Promise<void>;
  stop(): void;
}

interface WatchEvent {
  type: WatchEventType | 'BOOKMARK' | 'ERROR';
  object: KubernetesManifest & { code?: number };
}

/**
 * watchObjects lists a kind, then watches from the list's resourceVersion with bookmarks. A
 * 410 Gone (the version is too old) relists; a dropped stream resumes from the last version
 * seen; errors back off exponentially. It runs until stopped.
 */
export function watchObjects(connection: ClusterConnection, options: WatchOptions): RunningWatch {
  const controller = new AbortController();
  let markSynced: () => void = () => undefined;
  const synced = new Promise<void>((resolve) => (markSynced = resolve));
  void (async () => {
    let failures = 0;
    let version: string | undefined;
    while (!controller.signal.aborted) {
      try {
        if (!version) {
          options.onProgress?.({ type: 'listing' });
          version = await list(connection, options);
          options.onProgress?.({ type: 'listed', resourceVersion: version });
          markSynced();
        }
        version = await stream(connection, options, version, controller.signal);
        failures = 0;
      } catch (error) {
        if (controller.signal.aborted) return;
        options.onProgress?.({ type: 'interrupted' });
        if (error instanceof ApiError && error.status === 410) version = undefined;
        else {
          options.onError?.(error);
          failures += 1;
          await sleep(Math.min(options.maxBackoffMs ?? 30_000, 250 * 2 ** Math.min(failures, 8)), controller.signal);
        }
      }
    }
  })();
  return { synced, stop: () => controller.abort() };
}

async function list(connection: ClusterConnection, options: WatchOptions): Promise<string> {
  const resource = await connection.discovery.resourceFor(options.apiVersion, options.kind);
  const answer = await connection.client.request<{ metadata: { resourceVersion: string }; items: KubernetesManifest[] }>({
    method: 'GET', path: resourcePath(resource, options.namespace || undefined), what: `list ${options.kind} for a watch on ${connection.name}`,
  });
  for (const item of answer.items) options.onEvent('ADDED', { ...item, apiVersion: options.apiVersion, kind: options.kind }, true);
  return answer.metadata.resourceVersion;
}

/** stream follows one watch request and returns the last resourceVersion it saw. */
async function stream(connection: ClusterConnection, options: WatchOptions, since: string, signal: AbortSignal): Promise<string> {
  const resource = await connection.discovery.resourceFor(options.apiVersion, options.kind);
  const response = await connection.client.stream(resourcePath(resource, options.namespace || undefined), {
    watch: 1, resourceVersion: since, allowWatchBookmarks: true, timeoutSeconds: 300,
  }, signal);
  if ((response.statusCode ?? 0) >= 300) {
    response.resume();
    throw new ApiError(response.statusCode ?? 0, { message: `watch answered ${response.statusCode}` }, `watch ${options.kind} on ${connection.name}`);
  }
  options.onProgress?.({ type: 'streaming' });
  let version = since;
  for await (const line of createInterface({ input: response })) {
    if (!line.trim()) continue;
    const event = JSON.parse(line) as WatchEvent;
    if (event.type === 'ERROR') {
      throw new ApiError(event.object.code ?? 500, kubeStatusOf(event.object), `watch ${options.kind} on ${connection.name}`);
    }
    version = event.object.metadata?.resourceVersion ?? version;
    if (event.type === 'BOOKMARK') options.onProgress?.({ type: 'bookmark', resourceVersion: version });
    else options.onEvent(event.type, event.object, false);
  }
  return version;
}

/** sleep waits ms or until the watch stops, leaving no listener on the watch's signal behind. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** kubeStatusOf reads the metav1.Status a watch sends as an ERROR event, field by field. */
function kubeStatusOf(object: Record<string, unknown>): KubeStatus {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return { kind: text(object.kind), status: text(object.status), message: text(object.message), reason: text(object.reason), code: typeof object.code === 'number' ? object.code : undefined };
}
