import { parseObjectKey, type ReconcileJob } from '@tidemark/contracts';
import type { GitSource } from '@tidemark/git-source';
import type { Declaration, DeclarationIndex, DesiredStateReader } from '@tidemark/pipeline';

export interface SourceDeclarationsOptions {
  /** Every source this process reads, the same map the desired-state reader uses. */
  sources: ReadonlyMap<string, GitSource>;
  /** Sources being deleted: they declare nothing any more. */
  retiring?: ReadonlySet<string>;
  /** The desired-state reader, so placement decides what a source declares on a cluster. */
  reader: DesiredStateReader;
  /** headOf is the newest revision the poller recorded for a source (a proposal: the source admits it). */
  headOf(source: string): Promise<string | undefined>;
  enqueue(job: ReconcileJob): Promise<unknown>;
}

/** How many (source, revision) name indexes are kept; each maps object names to their keys. */
const nameIndexes = 64;

/**
 * sourceDeclarations answers "which Git objects, in any source, are named so?" for the pipeline's
 * DuplicateObject check: each source at the revision it applies now, through the same reader (and
 * so placement) as a run. A source's names are indexed once per revision.
 */
export function sourceDeclarations(options: SourceDeclarationsOptions): DeclarationIndex {
  const indexes = new Map<string, Promise<Map<string, string[]>>>();
  const namesAt = (source: string, gitSource: GitSource, revision: string): Promise<Map<string, string[]>> => {
    const key = `${source}@${revision}`;
    let index = indexes.get(key);
    if (!index) {
      index = gitSource.listObjects(revision).then((listing) => {
        const byName = new Map<string, string[]>();
        for (const { objectKey } of listing.objects) {
          const { name } = parseObjectKey(objectKey);
          byName.set(name, [...(byName.get(name) ?? []), objectKey]);
        }
        return byName;
      });
      index.catch(() => indexes.delete(key));
      indexes.set(key, index);
      for (const old of indexes.keys()) if (indexes.size > nameIndexes) indexes.delete(old);
    }
    return index;
  };
  const revisionOf = async (source: string, gitSource: GitSource, pinned: { source: string; revision: string }): Promise<string | undefined> => {
    if (source === pinned.source) return pinned.revision;
    const head = await options.headOf(source);
    // A head read from Redis is only a proposal: the source admits it (or its own newer head).
    return head ? gitSource.admitRevision(head).catch(() => undefined) : undefined;
  };
  return {
    async named(cluster, name, pinned) {
      const found: Declaration[] = [];
      for (const [source, gitSource] of options.sources) {
        if (options.retiring?.has(source)) continue;
        const revision = await revisionOf(source, gitSource, pinned);
        if (!revision) continue;
        for (const objectKey of (await namesAt(source, gitSource, revision)).get(name) ?? []) {
          // A broken declaration is reported by its own run; it holds its own key, not this one.
          const desired = await options.reader.readObject(source, revision, objectKey, cluster).catch(() => undefined);
          if (desired) found.push({ source, revision, objectKey, object: desired.object, path: desired.path, ...(desired.line ? { line: desired.line } : {}) });
        }
      }
      return found;
    },
    async wake(cluster, declaration) {
      // A look-again, as a watch asks: it never overwrites the revision a Git job recorded.
      await options.enqueue({ source: declaration.source, revision: declaration.revision, cluster, objectKey: declaration.objectKey, reason: 'watch' });
    },
  };
}
