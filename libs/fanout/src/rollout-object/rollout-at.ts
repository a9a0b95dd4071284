import type { KubernetesManifest } from '@tidemark/contracts';
import { RolloutPolicyError } from '../rollout-policy';
import { rolloutKeyPrefix } from './rollout-kind';
import { isRolloutObject, parseRolloutObject, type GitRollout } from './parse-rollout-object';

/** RolloutObjectSource is what reading a Rollout needs of a Git source (GitSource fits it). */
export interface RolloutObjectSource {
  listObjects(revision: string): Promise<{ objects: { objectKey: string; path?: string }[] }>;
  readObject(revision: string, objectKey: string): Promise<{ object: KubernetesManifest; path?: string } | undefined>;
}

/** isRolloutKey tells a Rollout object's key from the others (any namespace). */
export function isRolloutKey(objectKey: string): boolean {
  return objectKey.startsWith(rolloutKeyPrefix);
}

/**
 * rolloutAt reads the Rollout object of a source at a revision: undefined when there is none. A
 * source holds one at most; two, or one that does not parse, is a RolloutPolicyError naming the
 * file, the object and the field, and the source's rollout waits for a fix rather than run on a
 * policy half read.
 */
export async function rolloutAt(sourceName: string, source: RolloutObjectSource, revision: string): Promise<GitRollout | undefined> {
  const listing = await source.listObjects(revision);
  const found: GitRollout[] = [];
  for (const { objectKey } of listing.objects) {
    if (!isRolloutKey(objectKey)) continue;
    const read = await source.readObject(revision, objectKey);
    if (!read || !isRolloutObject(read.object)) continue;
    found.push(parseRolloutObject(sourceName, read.object, read.path ?? objectKey));
  }
  if (found.length > 1) throw new RolloutPolicyError(`${found.map((rollout) => rollout.where).join(' and ')}: a source has one Rollout at most; merge them or remove one`);
  return found[0];
}

/** RolloutObjectCache keeps the Rollout of the last few revisions of each source (a bad one is read again next time). */
export class RolloutObjectCache {
  private readonly entries = new Map<string, Promise<GitRollout | undefined>>();

  constructor(private readonly size = 16) {}

  rollout(sourceName: string, source: RolloutObjectSource, revision: string): Promise<GitRollout | undefined> {
    const key = `${sourceName}@${revision}`;
    let entry = this.entries.get(key);
    if (!entry) {
      entry = rolloutAt(sourceName, source, revision);
      entry.catch(() => this.entries.delete(key));
      this.entries.set(key, entry);
      while (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value!);
    }
    return entry;
  }
}
