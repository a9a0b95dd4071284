import { TerminalError, groupOf, type KubernetesManifest } from '@tidemark/contracts';
import type { ClusterConnection } from './connection';
import { ApiError, toReconcileFailure } from './api-error';
import { applyToResource, describe } from './apply';
import type { ApiResource } from './resource-path';
import { sameObject } from './compare';
import { deleteObject } from './delete';
import { getByResource } from './read';
import type { CacheAnswer } from './object-cache';
import { waitForEstablished } from './wait';
import { isTrimmed } from './trim-managed-fields';

/** ChangeAction is what applying an object did, as in Flux's change sets. */
export type ChangeAction = 'created' | 'configured' | 'unchanged' | 'deleted' | 'skipped';

export interface ChangeSetEntry {
  /** `Kind namespace/name`. */
  subject: string;
  action: ChangeAction;
  /** The object as the API server holds it after this step (the live object when nothing was written). */
  object: KubernetesManifest;
  /** The object before the apply; undefined when it did not exist. */
  live?: KubernetesManifest;
  /** The server-side-apply dry-run: what the object would be. */
  dryRun?: KubernetesManifest;
  /** What the API server warned about while applying it (a deprecated apiVersion, an unknown field). */
  warnings?: string[];
}

export interface ChangeSetOptions {
  /**
   * decide is asked before writing an object that would change; 'skip' leaves it as it is
   * (the drift policy `report` uses it). @defaultValue always 'apply'
   */
  decide?(object: KubernetesManifest, live: KubernetesManifest | undefined, dryRun: KubernetesManifest): 'apply' | 'skip';
  /**
   * appliedBefore is asked before dry-running an object that exists: when an earlier apply of this
   * very object left the live object at the version it has now, it returns what the API server
   * warned about then, and the object is 'unchanged' without a request. @defaultValue never
   */
  appliedBefore?(object: KubernetesManifest, live: KubernetesManifest): { warnings: readonly string[] } | undefined;
  /**
   * leftByLastApply says the live object is still at the version an earlier apply of it left (only
   * what that apply wrote is there). Without `decide`, such an object is applied at once, with no
   * dry-run first: the dry-run could only say what the apply will, and an apply that changes
   * nothing writes nothing (its answer keeps the resourceVersion: 'unchanged'). @defaultValue never
   */
  leftByLastApply?(object: KubernetesManifest, live: KubernetesManifest): boolean;
  /** known returns what the caller already read of an object in this run, so it is not read again. @defaultValue nothing known */
  known?(object: KubernetesManifest): KnownState | undefined;
  /**
   * cached answers from a watch cache what the live object is (`namespace` is '' for a
   * cluster-scoped kind), or undefined to read it from the API server. A write based on a cached
   * answer that meets a 404 or a conflict is done again after a live read. @defaultValue never cached
   */
  cached?(object: KubernetesManifest, namespace: string): CacheAnswer | undefined;
  /** observeApply wraps each object's apply (a trace span around it); it must call `apply` once and return its entry. @defaultValue none */
  observeApply?(object: KubernetesManifest, apply: () => Promise<ChangeSetEntry>): Promise<ChangeSetEntry>;
}

/**
 * KnownState is what the caller already read of an object in this run, so applyWithChangeSet
 * does not ask again: the live object (undefined: it does not exist) and, optionally, the
 * server-side-apply dry-run of this very object with the warnings it gave.
 */
export interface KnownState {
  live: KubernetesManifest | undefined;
  dryRun?: { object: KubernetesManifest; warnings: readonly string[] };
}

/** The annotation by which an object opts into delete-and-create when an immutable field changes. */
export const recreateAnnotation = 'tidemark.dev/recreate';

/**
 * applyChangeSet applies objects in dependency order: CRDs and Namespaces first (waiting until
 * each CRD is Established), then cluster-scoped objects, then namespaced ones. Each object is
 * dry-run first; an object whose dry-run equals the live object is not written at all.
 */
export async function applyChangeSet(connection: ClusterConnection, objects: KubernetesManifest[], options: ChangeSetOptions = {}): Promise<ChangeSetEntry[]> {
  const entries: ChangeSetEntry[] = [];
  const [definitions, clusterScoped, namespaced] = await partition(connection, objects);
  entries.push(...(await applyAll(connection, definitions, options)));
  const crds = definitions.filter((object) => object.kind === 'CustomResourceDefinition').map((object) => object.metadata.name);
  if (crds.length > 0) await waitForEstablished(connection, crds);
  entries.push(...(await applyAll(connection, clusterScoped, options)));
  entries.push(...(await applyAll(connection, namespaced, options)));
  return entries;
}

/**
 * applyWithChangeSet applies one object after a dry-run, and reports what it did. With `known`,
 * it reads neither the live object nor the dry-run again.
 */
export async function applyWithChangeSet(connection: ClusterConnection, object: KubernetesManifest, options: ChangeSetOptions = {}, known?: KnownState): Promise<ChangeSetEntry> {
  const warnings: string[] = [...(known?.dryRun?.warnings ?? [])];
  const entry = await applyWarned(connection, object, options, warnings, known);
  const unique = [...new Set(warnings)];
  return unique.length > 0 ? { ...entry, warnings: unique } : entry;
}

/**
 * applyWarned applies one object. When the live object came from the caller's cache and the API
 * server answers 404 or a conflict, the cache was behind (the object went, or changed under us):
 * server-side apply is the authority, so it reads live and goes again, once.
 */
async function applyWarned(connection: ClusterConnection, object: KubernetesManifest, options: ChangeSetOptions, warnings: string[], known?: KnownState): Promise<ChangeSetEntry> {
  const read: ReadState = { known, cached: false };
  try {
    return await applyRead(connection, object, options, warnings, read);
  } catch (error) {
    const cause = error instanceof ApiError ? error : (error as { cause?: unknown }).cause;
    if (!read.cached || !(cause instanceof ApiError) || !cause.mayBeStaleRead) throw error;
    return applyRead(connection, object, { ...options, cached: undefined }, warnings, { cached: false });
  }
}

/** ReadState: what the caller already knows of the object, and whether the live object came from a cache. */
interface ReadState {
  known?: KnownState;
  cached: boolean;
}

async function applyRead(connection: ClusterConnection, object: KubernetesManifest, options: ChangeSetOptions, warnings: string[], read: ReadState): Promise<ChangeSetEntry> {
  const subject = describe(object);
  const known = read.known;
  try {
    const resource = await connection.discovery.resourceFor(object.apiVersion, object.kind);
    const live = known ? known.live : await readLive(connection, resource, object, options, read);
    if (!live) return await create(connection, resource, object, options, warnings);
    const before = options.appliedBefore?.(object, live);
    if (before) {
      warnings.push(...before.warnings);
      return { subject, action: 'unchanged', object: live, live };
    }
    const atOnce = applyAtOnce(connection, { resource, object, live }, options, warnings, known);
    if (atOnce) return await atOnce;
    const dryRun = known?.dryRun?.object ?? await applyToResource(connection, resource, object, { dryRun: true, warnings });
    if (sameObject(dryRun, live, connection.fieldManager)) return { subject, action: 'unchanged', object: live, live, dryRun };
    return await decideAndApply(connection, { resource, object, live, dryRun }, options, warnings);
  } catch (error) {
    if (error instanceof ApiError && error.isImmutableFieldChange) return recreateOrFail(connection, object, error);
    throw toReconcileFailure(error, `apply ${subject}`);
  }
}

/**
 * applyAtOnce applies an object with no dry-run first when leftByLastApply allows it (no drift
 * to decide, no dry-run known); an answer at the same resourceVersion wrote nothing. Undefined
 * when the object takes the dry-run path.
 */
function applyAtOnce(connection: ClusterConnection, target: { resource: ApiResource; object: KubernetesManifest; live: KubernetesManifest }, options: ChangeSetOptions, warnings: string[], known: KnownState | undefined): Promise<ChangeSetEntry> | undefined {
  const { resource, object, live } = target;
  if (known?.dryRun || options.decide || !options.leftByLastApply?.(object, live)) return undefined;
  return applyToResource(connection, resource, object, { warnings }).then((applied) => {
    const action = applied.metadata.resourceVersion === live.metadata.resourceVersion ? 'unchanged' : 'configured';
    return { subject: describe(object), action, object: applied, live };
  });
}

/** Changing is an object whose dry-run differs from the live object. */
interface Changing {
  resource: ApiResource;
  object: KubernetesManifest;
  live: KubernetesManifest;
  dryRun: KubernetesManifest;
}

/**
 * decideAndApply asks `decide` (drift) and applies. A watch cache holds other managers' field
 * sets only where they overlap Tidemark's (trimManagedFields), and drift names who wrote a field
 * from them, including one another manager took from Tidemark by force; so a cached object is read
 * once more, whole, before drift is decided on it.
 */
async function decideAndApply(connection: ClusterConnection, changing: Changing, options: ChangeSetOptions, warnings: string[]): Promise<ChangeSetEntry> {
  const { resource, object, dryRun } = changing;
  const subject = describe(object);
  let live: KubernetesManifest | undefined = changing.live;
  if (options.decide && isTrimmed(live)) {
    live = await getByResource(connection, resource, resource.namespaced ? object.metadata.namespace : undefined, object.metadata.name);
    if (!live) return create(connection, resource, object, options, warnings);
    if (sameObject(dryRun, live, connection.fieldManager)) return { subject, action: 'unchanged', object: live, live, dryRun };
  }
  if (options.decide?.(object, live, dryRun) === 'skip') return { subject, action: 'skipped', object: live, live, dryRun };
  const applied = await applyToResource(connection, resource, object, { warnings });
  return { subject, action: 'configured', object: applied, live, dryRun };
}

/** readLive reads the live object from the caller's cache when it answers, else from the API server. */
async function readLive(connection: ClusterConnection, resource: ApiResource, object: KubernetesManifest, options: ChangeSetOptions, read: ReadState): Promise<KubernetesManifest | undefined> {
  const namespace = resource.namespaced ? object.metadata.namespace : undefined;
  const answer = options.cached?.(object, namespace ?? '');
  read.cached = answer !== undefined;
  return answer ? answer.object : getByResource(connection, resource, namespace, object.metadata.name);
}

/**
 * create applies an object that does not exist yet. There is nothing to compare it with, so no
 * dry-run is spent on it; the API server still validates the apply itself.
 */
async function create(connection: ClusterConnection, resource: ApiResource, object: KubernetesManifest, options: ChangeSetOptions, warnings: string[]): Promise<ChangeSetEntry> {
  const subject = describe(object);
  if (options.decide?.(object, undefined, object) === 'skip') return { subject, action: 'skipped', object };
  const applied = await applyToResource(connection, resource, object, { warnings });
  return { subject, action: 'created', object: applied, dryRun: applied };
}

async function recreateOrFail(connection: ClusterConnection, object: KubernetesManifest, error: ApiError): Promise<ChangeSetEntry> {
  const subject = describe(object);
  if (object.metadata.annotations?.[recreateAnnotation] !== 'true') {
    throw new TerminalError('ImmutableFieldChanged',
      `${subject} cannot be updated in place on ${connection.name}: ${error.body.message ?? 'a field is immutable'}. ` +
      `Revert the change, or annotate the object with ${recreateAnnotation}: "true" to let Tidemark delete and recreate it.`,
      { cause: error });
  }
  await deleteObject(connection, { group: groupOf(object.apiVersion), kind: object.kind, namespace: object.metadata.namespace ?? '', name: object.metadata.name });
  const applied = await applyWithRetryWhileTerminating(connection, object);
  return { subject, action: 'configured', object: applied };
}

async function applyWithRetryWhileTerminating(connection: ClusterConnection, object: KubernetesManifest): Promise<KubernetesManifest> {
  const resource = await connection.discovery.resourceFor(object.apiVersion, object.kind);
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await applyToResource(connection, resource, object);
    } catch (error) {
      // The old object may still be terminating; its replacement conflicts until it is gone.
      if (attempt >= 50 || !(error instanceof ApiError) || (error.status !== 409 && !error.isImmutableFieldChange)) throw toReconcileFailure(error, `recreate ${describe(object)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Objects of one ordering group applied at once; they do not depend on each other. */
const groupConcurrency = 4;

/**
 * applyAll applies one ordering group a few objects at a time, keeping the entries in input
 * order. After a failure no new object starts, and it returns only once every started apply has
 * ended, so nothing writes behind the caller's back.
 */
async function applyAll(connection: ClusterConnection, objects: KubernetesManifest[], options: ChangeSetOptions): Promise<ChangeSetEntry[]> {
  const results = new Array<ChangeSetEntry>(objects.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (next < objects.length && !failure) {
      const index = next++;
      try {
        const object = objects[index]!;
        const apply = () => applyWithChangeSet(connection, object, options, options.known?.(object));
        results[index] = await (options.observeApply ? options.observeApply(object, apply) : apply());
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(groupConcurrency, objects.length) }, lane));
  if (failure) throw failure.error;
  return results;
}

async function partition(connection: ClusterConnection, objects: KubernetesManifest[]): Promise<[KubernetesManifest[], KubernetesManifest[], KubernetesManifest[]]> {
  const definitions: KubernetesManifest[] = [];
  const clusterScoped: KubernetesManifest[] = [];
  const namespaced: KubernetesManifest[] = [];
  for (const object of objects) {
    if (object.kind === 'CustomResourceDefinition' || (object.kind === 'Namespace' && object.apiVersion === 'v1')) {
      definitions.push(object);
      continue;
    }
    // A kind whose CRD arrives in this same change set is not served yet: treat it as namespaced
    // unless discovery says otherwise after the CRDs are established.
    const resource = await connection.discovery.resourceFor(object.apiVersion, object.kind).catch(() => undefined);
    if (resource && !resource.namespaced) clusterScoped.push(object);
    else namespaced.push(object);
  }
  return [definitions, clusterScoped, namespaced];
}
