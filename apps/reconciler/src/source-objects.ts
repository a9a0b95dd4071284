import { join } from 'node:path';
import { applyChangeSet, type ClusterConnection } from '@tidemark/cluster';
import type { Logger } from '@tidemark/contracts';
import { retireSource } from '@tidemark/fanout';
import { GitSource, type UnitRendering } from '@tidemark/git-source';
import type { PolledSource, Poller } from '@tidemark/poller';
import type { ReconcileQueues } from '@tidemark/queue';
import { sourceCrd, SourceController, type ServedNamespaces, type SourceObjectRules } from '@tidemark/source-objects';
import type { StatusStore } from '@tidemark/status-store';
import { crdInstallerManager } from '@tidemark/conversion';
import type { SourceObjectKeys } from './unit-rendering';
import type { RedisClient } from '@tidemark/contracts';

/** SourceObjectsWiring is what the Source controller's hooks change and read. */
export interface SourceObjectsWiring {
  management: ClusterConnection;
  /** Where Sources are served (and their Secrets read): a watch per namespace, or 'all'. */
  namespaces: ServedNamespaces;
  /** The one map of sources the pipeline, the router and the full resync read. */
  sources: Map<string, GitSource>;
  /** Sources whose Source object is being deleted: they declare nothing, so their objects are pruned. */
  retiring: Set<string>;
  /** Absent in a worker-only process. */
  poller?: Poller;
  instrument(source: PolledSource): PolledSource;
  cacheRoot: string;
  /** The shared rendering with a source's own sops keys (see sourceRendering). */
  rendering?: (source: string, keys: SourceObjectKeys) => UnitRendering;
  redis: RedisClient;
  statusStore: StatusStore;
  queues: ReconcileQueues;
  clusters: readonly string[];
  rules: SourceObjectRules;
  log: Logger;
}

/**
 * startSourceObjects installs the Source CRD on the management cluster and starts the controller
 * that turns Source objects into sources of this process, without a restart. Only wiring: what a
 * Source means is libs/source-objects', how its objects are pruned is libs/fanout's.
 */
export async function startSourceObjects(wiring: SourceObjectsWiring): Promise<SourceController> {
  const { sources, retiring, poller, log } = wiring;
  await applyChangeSet(wiring.management.asManager(crdInstallerManager), [sourceCrd()]);
  const controller: SourceController = new SourceController({
    connection: wiring.management,
    namespaces: wiring.namespaces,
    rules: wiring.rules,
    manages: poller !== undefined,
    log,
    hooks: {
      async put(declaration, credentials, decryptionKeys) {
        const keys = { keys: decryptionKeys, namespace: declaration.object.namespace };
        const source = new GitSource({ spec: declaration.spec, cacheDir: join(wiring.cacheRoot, declaration.name), credentials, ...(wiring.rendering ? { rendering: wiring.rendering(declaration.name, keys) } : {}) });
        await source.open();
        const previous = sources.get(declaration.name);
        sources.set(declaration.name, source);
        retiring.delete(declaration.name);
        const changed = previous !== undefined && JSON.stringify(readOnly(previous.spec)) !== JSON.stringify(readOnly(declaration.spec));
        await poller?.add({ ...wiring.instrument(source), suspended: declaration.suspended }, { fromScratch: changed });
        await previous?.close();
        log.info({ source: declaration.name, url: declaration.spec.url, suspended: declaration.suspended }, 'Source object put');
      },
      async retire(name) {
        retiring.add(name);
        await poller?.remove(name);
        return retireSource(name, { redis: wiring.redis, statusStore: wiring.statusStore, queues: wiring.queues, clusters: wiring.clusters });
      },
      async drop(name) {
        const source = sources.get(name);
        sources.delete(name);
        retiring.delete(name);
        await poller?.remove(name);
        await poller?.forget(name);
        await source?.close();
        log.info({ source: name }, 'Source object gone');
      },
      trigger: (name) => void poller?.trigger(name),
    },
  });
  await controller.start();
  return controller;
}

/** readOnly is what decides which objects a source declares: a change here diffs it from nothing. */
function readOnly(spec: GitSource['spec']): unknown {
  return { url: spec.url, ref: spec.ref, path: spec.path, ignoreFile: spec.ignoreFile };
}
