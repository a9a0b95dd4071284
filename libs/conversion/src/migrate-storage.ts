import { crdVersions, listPage, rewriteObject, setStoredVersions, type ApiResource, type ClusterConnection, type CrdVersions } from '@tidemark/cluster';

/** StorageMigrationProgress is reported after every object and at the end. */
export interface StorageMigrationProgress {
  cluster: string;
  crd: string;
  /** Objects written back in the storage version so far (deleted ones count as done). */
  migrated: number;
  /** Objects seen so far plus those the API server says remain; grows as pages arrive. */
  total: number;
  done: boolean;
}

export interface StorageMigrationOptions {
  /** Most objects rewritten per second, so a migration never floods the API server. @defaultValue 20 */
  objectsPerSecond?: number;
  /** Objects per list page. @defaultValue 100 */
  pageSize?: number;
  /** A progress log line every this many objects, and one at the end. @defaultValue 100 */
  logEvery?: number;
  log?: { info(fields: Record<string, unknown>, message: string): void };
  onProgress?(progress: StorageMigrationProgress): void;
  /** Stops the migration between objects; storedVersions is then left as it was. */
  signal?: AbortSignal;
}

/** StorageMigrationResult says what a migration did. */
export interface StorageMigrationResult {
  /** false when status.storedVersions already named only the storage version. */
  ran: boolean;
  migrated: number;
  storedVersions: string[];
}

/**
 * migrateStorage rewrites every object of a CRD in its storage version, at a bounded rate with
 * progress in logs and `onProgress`, then trims status.storedVersions to the storage version so
 * an older version can be dropped from the CRD without losing an object. Level-triggered: it
 * does nothing once storedVersions names the storage version alone, and an interrupted run is
 * simply run again (rewriting an object twice is harmless).
 */
export async function migrateStorage(connection: ClusterConnection, crdName: string, options: StorageMigrationOptions = {}): Promise<StorageMigrationResult> {
  const versions = await crdVersions(connection, crdName);
  if (!versions || upToDate(versions)) return { ran: false, migrated: 0, storedVersions: versions?.storedVersions ?? [] };
  const storage = versions.storageVersion;
  const log = options.log;
  const started = Date.now();
  log?.info({ cluster: connection.name, crd: crdName, from: versions.storedVersions, to: storage }, 'storage version migration started');
  const progress = await rewriteAll(connection, crdName, versions, options);
  options.signal?.throwIfAborted();
  // Only if the storage version is still the one every object was written in.
  const now = await crdVersions(connection, crdName);
  if (now?.storageVersion !== storage) throw new Error(`CRD ${crdName} changed its storage version during the migration (${storage} to ${now?.storageVersion ?? 'none'}); it will run again`);
  await setStoredVersions(connection, crdName, [storage]);
  options.onProgress?.({ ...progress, total: progress.migrated, done: true });
  log?.info({ cluster: connection.name, crd: crdName, migrated: progress.migrated, storedVersions: [storage], durationMs: Date.now() - started }, 'storage version migration finished');
  return { ran: true, migrated: progress.migrated, storedVersions: [storage] };
}

/** rewriteAll lists the CRD's objects page by page and writes each back, paced to objectsPerSecond. */
async function rewriteAll(connection: ClusterConnection, crdName: string, versions: CrdVersions, options: StorageMigrationOptions): Promise<StorageMigrationProgress> {
  const resource: ApiResource = { group: versions.group, version: versions.storageVersion, kind: versions.kind, plural: versions.plural, namespaced: versions.namespaced, hasStatusSubresource: true };
  const progress: StorageMigrationProgress = { cluster: connection.name, crd: crdName, migrated: 0, total: 0, done: false };
  const intervalMs = 1000 / (options.objectsPerSecond ?? 20);
  const logEvery = options.logEvery ?? 100;
  const started = Date.now();
  let continueToken: string | undefined;
  do {
    const page = await listPage(connection, resource, options.pageSize ?? 100, continueToken);
    continueToken = page.continueToken;
    progress.total = Math.max(progress.total, progress.migrated + page.items.length + (page.remainingItemCount ?? 0));
    for (const object of page.items) {
      options.signal?.throwIfAborted();
      await sleep(started + progress.migrated * intervalMs - Date.now());
      await rewriteObject(connection, resource, object);
      progress.migrated += 1;
      options.onProgress?.({ ...progress });
      if (progress.migrated % logEvery === 0) options.log?.info({ cluster: connection.name, crd: crdName, migrated: progress.migrated, total: progress.total }, 'storage version migration progress');
    }
  } while (continueToken);
  return progress;
}

function upToDate(versions: CrdVersions): boolean {
  return !versions.storageVersion || versions.storedVersions.every((version) => version === versions.storageVersion);
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
