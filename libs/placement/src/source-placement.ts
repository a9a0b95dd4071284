import type { KubernetesManifest } from '@tidemark/contracts';
import { isPlacementObject, PlacementRules } from './placement';

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

/** PlacementCache keeps the rules of the last few revisions of each source. */
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
}
