import type { ChangeSetEntry } from '@tidemark/cluster';
import { contentHash, type AppliedVersion, type KubernetesManifest, type ObjectStatus } from '@tidemark/contracts';
import { inventoryEntry, inventoryId } from '../render/stage-render';

/** AppliedVersions maps an object's inventory id to the version its last apply left. */
export type AppliedVersions = Record<string, AppliedVersion>;

/**
 * appliedBefore answers the change set's question "was this very object applied to this very
 * live version before?" from the last run's record. A Secret never is (its hash is not kept),
 * and a record that does not hold well-formed versions answers no: a dry-run is never skipped on
 * a guess.
 */
export function appliedBefore(previous: ObjectStatus | undefined): (object: KubernetesManifest, live: KubernetesManifest) => { warnings: readonly string[] } | undefined {
  const versions = previous?.appliedVersions;
  return (object, live) => {
    if (!versions || typeof versions !== 'object' || isSecret(object)) return undefined;
    const version: unknown = versions[inventoryId(inventoryEntry(object))];
    if (!isAppliedVersion(version)) return undefined;
    const same = version.uid === live.metadata.uid && version.resourceVersion === live.metadata.resourceVersion && version.hash === contentHash(object);
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
export function appliedVersionOf(object: KubernetesManifest, entry: ChangeSetEntry): [string, AppliedVersion] | undefined {
  if (entry.action === 'skipped' || entry.action === 'deleted' || isSecret(object)) return undefined;
  const { uid, resourceVersion } = entry.object.metadata;
  if (typeof uid !== 'string' || typeof resourceVersion !== 'string') return undefined;
  const version: AppliedVersion = { hash: contentHash(object), uid, resourceVersion };
  if (entry.warnings && entry.warnings.length > 0) version.warnings = entry.warnings;
  return [inventoryId(inventoryEntry(object)), version];
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
