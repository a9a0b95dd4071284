import { applyChangeSet, applyObject, getObject, type ClusterConnection } from '@tidemark/cluster';
import { TerminalError, type KubernetesManifest } from '@tidemark/contracts';
import { needsConversionWebhook, withConversion, type CrdConversion } from './crd-conversion';
import { crdHash, crdStamp, crdStampAnnotation, crdStampManager, installedAsStamped } from './crd-stamp';
import { migrateStorage, type StorageMigrationOptions } from './migrate-storage';
import type { KindRegistry } from '@tidemark/kinds';

/** The field manager that installs built-in CRDs. */
export const crdInstallerManager = 'tidemark-crds';

/** CrdOwnership says which built-in CRDs a Git source may manage instead of Tidemark. */
export interface CrdOwnership {
  /** CRD names some source lists in manageBuiltinCrds. @defaultValue none */
  gitManaged?: ReadonlySet<string>;
}

/**
 * installBuiltinCrds applies the CRD of every registered kind that a cluster lacks, that
 * Tidemark installed before (so upgrades reach it, and a hand edit is undone), or that a Git
 * source replaced without being allowed to. A CRD an allowed source manages through Git, or one
 * someone else installed (by hand, by Helm), is left as it is. One still as Tidemark installed it
 * (crd-stamp) is neither applied nor awaited: a restart on a cluster that has them sends a GET each.
 */
export async function installBuiltinCrds(cluster: ClusterConnection, kinds: KindRegistry, conversion?: CrdConversion, ownership: CrdOwnership = {}): Promise<string[]> {
  // A manager of its own: a CRD pushed through Git is applied as cluster.fieldManager ('tidemark').
  const connection = cluster.asManager(crdInstallerManager);
  const toApply = [];
  const stamps = new Map<string, string>();
  for (const plugin of kinds.list()) {
    const name = plugin.crd.metadata.name;
    const live = await getObject(connection, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name });
    const owner = ownerOf(live, { installer: connection.fieldManager, git: cluster.fieldManager });
    const allowedInGit = ownership.gitManaged?.has(name) ?? false;
    if (owner === 'other' || (owner === 'git' && allowedInGit)) continue;
    const desired = crdWithConversion(plugin.crd, conversion);
    const hash = crdHash(desired);
    if (live && owner === 'installer' && installedAsStamped(live, desired, hash)) continue;
    stamps.set(name, hash);
    toApply.push(desired);
  }
  const changes = await applyChangeSet(connection, toApply);
  await stampGenerations(cluster.asManager(crdStampManager), changes, stamps);
  return changes.filter((change) => change.action !== 'unchanged').map((change) => change.subject);
}

/**
 * ownerOf says who applied a built-in CRD: nobody (absent), Tidemark's installer, a Git source
 * (Tidemark's main field manager, which wins over the installer), or someone else (by hand, by Helm).
 */
function ownerOf(live: KubernetesManifest | undefined, managers: { installer: string; git: string }): 'absent' | 'installer' | 'git' | 'other' {
  if (!live) return 'absent';
  const entries = (live.metadata.managedFields as { manager?: string; operation?: string }[] | undefined) ?? [];
  const applies = (manager: string) => entries.some((entry) => entry.manager === manager && entry.operation === 'Apply');
  if (applies(managers.git)) return 'git';
  return applies(managers.installer) ? 'installer' : 'other';
}

/**
 * stampGenerations sets each applied CRD's stamp to its hash and the generation the apply left, as
 * the stamp's own manager (an annotation alone keeps the generation). An install running beside
 * another (the CRD watch's, the CA's) writes the same stamp, or finds it there.
 */
async function stampGenerations(stamper: ClusterConnection, changes: readonly { object: KubernetesManifest }[], stamps: ReadonlyMap<string, string>): Promise<void> {
  for (const { object } of changes) {
    const hash = stamps.get(object.metadata.name);
    const generation = object.metadata.generation;
    if (hash === undefined || generation === undefined || object.metadata.annotations?.[crdStampAnnotation] === `${hash}@${generation}`) continue;
    await applyObject(stamper, crdStamp(object.metadata.name, hash, generation));
  }
}

/**
 * crdWithConversion fills in Tidemark's conversion webhook. Every write of a multi-version CRD
 * carries it: one written without it would convert by relabelling, and store objects wrongly.
 */
function crdWithConversion(crd: KubernetesManifest, conversion: CrdConversion | undefined): KubernetesManifest {
  if (!needsConversionWebhook(crd)) return crd;
  if (!conversion) {
    throw new TerminalError('ConversionWebhookMissing', `CRD ${crd.metadata.name} serves several versions and needs Tidemark's conversion webhook; configure conversionWebhook (or pass a CrdConversion to installBuiltinCrds).`);
  }
  return withConversion(crd, conversion);
}

/** KeepInstallingOptions tune keepInstallingBuiltinCrds. */
export interface KeepInstallingOptions {
  /** Wait before retrying a cluster that failed. @defaultValue 30000 */
  retryMs?: number;
  /** The conversion webhook's current address and CA, for CRDs that serve several versions. */
  conversion?: () => CrdConversion;
  /** Rate and progress of the storage version migration that follows each install. */
  migration?: Omit<StorageMigrationOptions, 'log' | 'signal'>;
  /** Built-in CRDs a Git source may manage instead. */
  ownership?: CrdOwnership;
}

/**
 * keepInstallingBuiltinCrds installs the built-in CRDs on each cluster in the background, each
 * cluster on its own, retrying one that fails: a slow or dead cluster must not hold up the start
 * of the others. Objects of those kinds wait (not ready) until their CRD is there. After each
 * install, objects still stored in an older version of a CRD are rewritten (migrateStorage).
 */
export function keepInstallingBuiltinCrds(
  clusters: ReadonlyMap<string, ClusterConnection>,
  kinds: KindRegistry,
  log: { info(fields: Record<string, unknown>, message: string): void; warn(fields: Record<string, unknown>, message: string): void },
  options: KeepInstallingOptions = {},
): { stop(): void; reinstall(): Promise<void> } {
  const { retryMs = 30_000, conversion, migration, ownership } = options;
  const timers = new Set<NodeJS.Timeout>();
  const abort = new AbortController();
  let stopped = false;
  const installAndMigrate = async (name: string, connection: ClusterConnection) => {
    const installed = await installBuiltinCrds(connection, kinds, conversion?.(), ownership);
    if (installed.length > 0) log.info({ cluster: name, installed }, 'installed built-in CRDs');
    // After an upgrade the cluster may still store objects in an older version: rewrite them.
    for (const plugin of kinds.list()) {
      if (needsConversionWebhook(plugin.crd)) await migrateStorage(connection, plugin.crd.metadata.name, { ...migration, log, signal: abort.signal });
    }
  };
  const attempt = (name: string, connection: ClusterConnection) => {
    installAndMigrate(name, connection).catch((error: unknown) => {
      if (stopped) return;
      log.warn({ cluster: name, err: String(error) }, `could not install the built-in CRDs or migrate their stored objects yet; retrying in ${retryMs / 1000} s`);
      const timer = setTimeout(() => { timers.delete(timer); attempt(name, connection); }, retryMs);
      timers.add(timer);
    });
  };
  for (const [name, connection] of clusters) attempt(name, connection);
  return {
    stop() {
      stopped = true;
      abort.abort();
      timers.forEach(clearTimeout);
    },
    /** reinstall applies the CRDs to every cluster now (a new CA bundle); a cluster that fails is retried later. */
    async reinstall() {
      await Promise.all([...clusters].map(async ([name, connection]) => {
        try {
          await installBuiltinCrds(connection, kinds, conversion?.(), ownership);
        } catch (error) {
          if (!stopped) log.warn({ cluster: name, err: String(error) }, 'could not update the built-in CRDs; retrying at the next check');
        }
      }));
    },
  };
}
