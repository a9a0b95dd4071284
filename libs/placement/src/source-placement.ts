import type { KubernetesManifest } from '@tidemark/contracts';
import { isPlacementObject, PlacementRules, clusterSelectorAnnotation, type ClusterTarget } from './placement';
import type { PlacedIdentity } from './rule-identity';

/** PlacementSource is what placement needs of a Git source (GitSource fits it). */
export interface PlacementSource {
  listObjects(revision: string): Promise<{ objects: { objectKey: string }[] }>;
  readObject(revision: string, objectKey: string): Promise<{ object: KubernetesManifest } | undefined>;
}

const placementKeyPrefix = 'tidemark.dev/Placement/';

/** isPlacementKey tells a Placement object's key from the others (any namespace). */
export function isPlacementKey(objectKey: string): boolean {
  return objectKey.startsWith(placementKeyPrefix);
}

/**
 * rulesAt reads the Placement objects of a source at a revision. A Placement object that does
 * not parse is an error for placement as a whole: sending objects to the wrong clusters is worse
 * than waiting for a fix.
 */
export async function rulesAt(source: PlacementSource, revision: string): Promise<PlacementRules> {
  const listing = await source.listObjects(revision);
  const objects: KubernetesManifest[] = [];
  for (const { objectKey } of listing.objects) {
    if (!isPlacementKey(objectKey)) continue;
    const found = await source.readObject(revision, objectKey);
    if (found && isPlacementObject(found.object.apiVersion, found.object.kind)) objects.push(found.object);
  }
  return objects.length === 0 ? PlacementRules.none() : PlacementRules.fromObjects(objects);
}

/**
 * PlacedObject is an object as placement sees it: the path that declares it and its cluster-selector
 * annotation, given as the annotation (from the source's index) or read from the object itself.
 */
export interface PlacedObject {
  path: string;
  clusterSelector?: string | undefined;
  object?: KubernetesManifest;
}

/**
 * PlacementCache keeps the rules of the last few revisions of each source, and is where every
 * reader asks where an object goes (routing a poll, reading desired state): one decision, one place.
 */
export class PlacementCache {
  private readonly entries = new Map<string, Promise<PlacementRules>>();

  constructor(private readonly size = 8) {}

  rules(sourceName: string, source: PlacementSource, revision: string): Promise<PlacementRules> {
    const key = `${sourceName}@${revision}`;
    let entry = this.entries.get(key);
    if (!entry) {
      entry = rulesAt(source, revision);
      entry.catch(() => this.entries.delete(key));
      this.entries.set(key, entry);
      while (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value!);
    }
    return entry;
  }

  /** targetsOf names the clusters an object of the source at the revision goes to. */
  async targetsOf(sourceName: string, source: PlacementSource, revision: string, placed: PlacedObject, clusters: readonly ClusterTarget[]): Promise<string[]> {
    const rules = await this.rules(sourceName, source, revision);
    const selector = placed.clusterSelector ?? placed.object?.metadata.annotations?.[clusterSelectorAnnotation];
    return rules.targetsFor(placed.path, selector, clusters);
  }

  /** identityAt is the ServiceAccount of the rule that places what `path` declares (PlacementRules.identityFor). */
  async identityAt(sourceName: string, source: PlacementSource, revision: string, path: string): Promise<PlacedIdentity | undefined> {
    return (await this.rules(sourceName, source, revision)).identityFor(path);
  }
}
