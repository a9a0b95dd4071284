import { ApiError, watchObjects, type ClusterConnection, type RunningWatch, type WatchEventType } from '@tidemark/cluster';
import { TerminalError, messageOf, type KubernetesManifest, type Logger } from '@tidemark/contracts';

/** WatchForbiddenCode is the stable code of a served namespace whose Sources or Secrets may not be read. */
export const WatchForbiddenCode = 'SourceWatchForbidden';

/** ForbiddenWatches holds, per watch, why it is refused now (403), for the readiness detail. */
export class ForbiddenWatches {
  private readonly messages = new Map<string, string>();
  set(key: string, message: string): void { this.messages.set(key, message); }
  /** clear forgets a watch that works again; it tells whether it was refused before. */
  clear(key: string): boolean { return this.messages.delete(key); }
  list(): string[] { return [...this.messages.values()]; }
}

export interface ServedWatchOptions {
  connection: ClusterConnection;
  apiVersion: string;
  kind: 'Source' | 'Secret';
  /** '' is every namespace (sourceObjects.namespaces ["*"]). */
  namespace: string;
  onEvent(type: WatchEventType, object: KubernetesManifest): void;
  forbidden: ForbiddenWatches;
  log: Logger;
}

/**
 * watchServed watches Sources or Secrets of one served namespace. A 403 before the first list is
 * a TerminalError from `synced` (start-up stops: no role there is a deployment mistake, and
 * retrying hides it until the startup probe restarts the pod). A 403 later (rights removed while
 * running) is logged at error level and kept in `forbidden` while the watch retries with backoff,
 * so the other namespaces keep being served. Other errors retry, as every watch does.
 */
export function watchServed(options: ServedWatchOptions): RunningWatch {
  const { namespace, kind, log, forbidden } = options;
  const key = `${kind}/${namespace || '*'}`;
  let verb: 'list' | 'watch' = 'list';
  let listed = false;
  let failStart: (error: Error) => void = () => undefined;
  const refused = new Promise<never>((_resolve, reject) => (failStart = reject));
  const watch = watchObjects(options.connection, {
    apiVersion: options.apiVersion, kind, namespace,
    onEvent: (type, object) => options.onEvent(type, object),
    onProgress: (progress) => {
      if (progress.type === 'listing') verb = 'list';
      if (progress.type === 'listed') listed = true;
      if (progress.type === 'listed' || progress.type === 'bookmark') verb = 'watch';
      if ((progress.type === 'listed' || progress.type === 'streaming') && forbidden.clear(key)) log.info({ namespace: namespace || '*', kind }, `${kind} watch allowed again`);
    },
    onError: (error) => {
      if (!(error instanceof ApiError && error.status === 403)) {
        log.warn({ namespace: namespace || '*', err: messageOf(error) }, `${kind} watch failed; retrying`);
        return;
      }
      const message = forbiddenMessage(kind, verb, namespace, error.body.message ?? error.message);
      if (!listed) return failStart(new TerminalError(WatchForbiddenCode, message, { cause: error, category: 'forbidden' }));
      forbidden.set(key, message);
      (log.error ?? log.warn).call(log, { namespace: namespace || '*', kind, verb, code: WatchForbiddenCode }, `${message} Retrying with backoff; the other namespaces are served.`);
    },
  });
  // The first list, or the refusal that start-up reports.
  const synced = Promise.race([watch.synced, refused]);
  synced.catch(() => undefined);
  return { synced, stop: () => watch.stop() };
}

/** forbiddenMessage says what may not be read where, and what grants it (deploy/README.md, "Source objects"). */
export function forbiddenMessage(kind: 'Source' | 'Secret', verb: 'list' | 'watch', namespace: string, answer: string): string {
  const resource = kind === 'Source' ? 'sources.tidemark.dev' : 'secrets';
  const where = namespace ? `in namespace ${namespace}` : 'cluster-wide';
  const grant = namespace
    ? `Grant it there: with Helm, list ${namespace} in the value sourceObjects.namespaces (the chart renders a Role and RoleBinding in each); with Kustomize, add the Role and RoleBinding of components/source-objects with metadata.namespace: ${namespace}. Or stop serving ${namespace}: remove it from sourceObjects.namespaces in tidemark.yaml.`
    : 'Grant it: with Helm, the value sourceObjects.namespaces: ["*"] renders a ClusterRole; or list the namespaces to serve instead of "*".';
  return `The reconciler may not ${verb} ${resource} ${where} (403 Forbidden: ${answer}); it needs get, list, watch and patch on sources, get and patch on sources/status, and get, list and watch on secrets ${where}. ${grant} See deploy/README.md, "Source objects".`;
}
