import type { ChangeSetEntry } from '@tidemark/cluster';
import { contentHash, type Condition, type DriftItem, type InventoryEntry, type KubernetesManifest, type AppliedVersion, type ObjectStatus, type AppliedResource } from '@tidemark/contracts';
import { healthOf, type Health, type HealthRule } from '@tidemark/kinds';
import type { KeptObject } from '../prune/guards';
import { inventoryEntry, inventoryId } from '../render/tracking';

/** AppliedObjects is what the apply stage did. */
export interface AppliedObjects {
  /** For a kind, the CR; for a plain manifest, the object: as the cluster holds it after apply. */
  live: KubernetesManifest | undefined;
  /** One entry per rendered object: created, configured, unchanged or skipped (drift reported). */
  changes: ChangeSetEntry[];
  /** The version each object applied, created, configured or unchanged, is live at now (see appliedBefore). */
  versions: AppliedVersions;
  /** What the object owns now, for the next run's prune (a plain manifest is its own: none). */
  inventory: InventoryEntry[];
  /** Drift found on the way: healed (re-applied) and reported (left as it is). */
  drift: { healed: DriftItem[]; reported: DriftItem[] };
  /** What the API server warned about while applying (deprecated apiVersions), each a sentence. */
  warnings: string[];
}

/** KindCondition is a condition a kind reports; the status stage adds generation and transition time. */
export type KindCondition = Omit<Condition, 'lastTransitionTime' | 'observedGeneration'>;

/** KindOutcome is what a kind adds to a run (act stage): its status fields and its own conditions. */
export interface KindOutcome {
  kindStatus: Record<string, unknown>;
  kindConditions: KindCondition[];
}

/**
 * ApplyOutcome is what the apply, prune, act and health stages returned, kept together once
 * they have all run: the status stage, finalize and the observer read it.
 */
export interface ApplyOutcome {
  applied: AppliedObjects;
  /** 'deleted' change-set entries: what left the inventory and was pruned. */
  pruned: ChangeSetEntry[];
  /** What a prune guard kept (orphaned) instead, each with the reason. */
  kept: KeptObject[];
  kind: KindOutcome;
  health: Health;
}

/** AppliedVersions maps an object's inventory id to the version its last apply left. */
export type AppliedVersions = Record<string, AppliedVersion>;

/**
 * appliedBefore answers the change set's question "was this very object applied to this very
 * live version before?" from the last run's record. A Secret never is (its hash is not kept),
 * and a record that does not hold well-formed versions answers no: a dry-run is never skipped on
 * a guess.
 */
export function appliedBefore(previous: ObjectStatus | undefined, hashOf: (object: KubernetesManifest) => string = contentHash): (object: KubernetesManifest, live: KubernetesManifest) => { warnings: readonly string[] } | undefined {
  const versions = previous?.appliedVersions;
  return (object, live) => {
    if (!versions || typeof versions !== 'object' || isSecret(object)) return undefined;
    const version: unknown = versions[inventoryId(inventoryEntry(object))];
    if (!isAppliedVersion(version)) return undefined;
    const same = version.uid === live.metadata.uid && version.resourceVersion === live.metadata.resourceVersion && version.hash === hashOf(object);
    return same ? { warnings: version.warnings ?? [] } : undefined;
  };
}

/**
 * leftByLastApply answers "is the live object still at the version the last run's apply of it
 * left?" (its uid and resourceVersion, whatever Git wants now): nobody else wrote it since, so a
 * changed object goes straight to its apply (ChangeSetOptions.leftByLastApply). Secrets never are.
 */
export function leftByLastApply(previous: ObjectStatus | undefined): (object: KubernetesManifest, live: KubernetesManifest) => boolean {
  const versions = previous?.appliedVersions;
  return (object, live) => {
    if (!versions || typeof versions !== 'object' || isSecret(object)) return false;
    const version: unknown = versions[inventoryId(inventoryEntry(object))];
    return isAppliedVersion(version) && version.uid === live.metadata.uid && version.resourceVersion === live.metadata.resourceVersion;
  };
}

/**
 * appliedVersionOf is what an apply's entry says for the next run: the object as Git wants it is
 * live at the entry's version (created, configured, or unchanged). Skipped objects (drift left in
 * place) and Secrets have none, so they are dry-run again next time.
 */
export function appliedVersionOf(object: KubernetesManifest, entry: ChangeSetEntry, hashOf: (object: KubernetesManifest) => string = contentHash): [string, AppliedVersion] | undefined {
  if (entry.action === 'skipped' || entry.action === 'deleted' || isSecret(object)) return undefined;
  const { uid, resourceVersion } = entry.object.metadata;
  if (typeof uid !== 'string' || typeof resourceVersion !== 'string') return undefined;
  const version: AppliedVersion = { hash: hashOf(object), uid, resourceVersion };
  if (entry.warnings && entry.warnings.length > 0) version.warnings = entry.warnings;
  return [inventoryId(inventoryEntry(object)), version];
}

/**
 * hashedOnce is contentHash remembering each object it hashed: one apply stage asks about the same
 * rendered object twice (appliedBefore before its write, appliedVersionOf after), and nothing
 * changes the object in between.
 */
export function hashedOnce(): (object: KubernetesManifest) => string {
  const hashes = new WeakMap<KubernetesManifest, string>();
  return (object) => {
    const known = hashes.get(object);
    if (known !== undefined) return known;
    const hash = contentHash(object);
    hashes.set(object, hash);
    return hash;
  };
}

/** withResourceVersion moves an object's recorded version to the one a later write (its /status) left. */
export function withResourceVersion(versions: AppliedVersions, object: KubernetesManifest, written: KubernetesManifest): AppliedVersions {
  const id = inventoryId(inventoryEntry(object));
  const version = versions[id];
  const { uid, resourceVersion } = written.metadata;
  if (!version || version.uid !== uid || typeof resourceVersion !== 'string') return versions;
  return { ...versions, [id]: { ...version, resourceVersion } };
}

function isSecret(object: KubernetesManifest): boolean {
  return object.kind === 'Secret' && object.apiVersion === 'v1';
}

function isAppliedVersion(value: unknown): value is AppliedVersion {
  if (!value || typeof value !== 'object') return false;
  const version = value as Partial<AppliedVersion>;
  const warningsOk = version.warnings === undefined || (Array.isArray(version.warnings) && version.warnings.every((warning) => typeof warning === 'string'));
  return typeof version.hash === 'string' && typeof version.uid === 'string' && typeof version.resourceVersion === 'string' && warningsOk;
}

/** Resources kept per record: a WebApp renders a handful; a huge render keeps its first ones. */
const maxResources = 100;

/**
 * appliedResources lists what this run applied, with the apply's action and each object's
 * health, for the dashboard's resource tree. A plain manifest lists itself.
 */
export function appliedResources(changes: readonly ChangeSetEntry[], rules?: readonly HealthRule[]): AppliedResource[] {
  return changes.filter((entry) => entry.action !== 'deleted').slice(0, maxResources).map((entry) => {
    const { object } = entry;
    const health = healthOf(object, rules);
    const resource: AppliedResource = {
      apiVersion: object.apiVersion, kind: object.kind, namespace: object.metadata.namespace ?? '', name: object.metadata.name,
      action: entry.action as AppliedResource['action'], health: health.status, message: health.message,
    };
    if (typeof object.metadata.uid === 'string') resource.uid = object.metadata.uid;
    return resource;
  });
}
