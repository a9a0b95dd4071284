import { TerminalError } from '@tidemark/contracts';
import type { GitSource } from '@tidemark/git-source';
import type { ClusterTarget, PlacementCache } from '@tidemark/placement';
import type { DesiredObject, DesiredStateReader } from '@tidemark/pipeline';

/**
 * gitDesiredState reads desired objects from this process's own Git sources. An object that
 * placement does not send to the job's cluster is not desired there: the pipeline prunes it.
 */
export function gitDesiredState(sources: ReadonlyMap<string, GitSource>, placement: PlacementCache, clusters: readonly ClusterTarget[]): DesiredStateReader {
  const sourceOf = (source: string): GitSource => {
    const gitSource = sources.get(source);
    if (!gitSource) throw new TerminalError('UnknownSource', `job names source "${source}", which is not configured; add it to the config or drop the job.`);
    return gitSource;
  };
  return {
    // A job from Redis only proposes a revision; the source decides what may be applied.
    admitRevision: (source, revision) => sourceOf(source).admitRevision(revision),
    async readObject(source, revision, objectKey, cluster): Promise<DesiredObject | undefined> {
      const gitSource = sourceOf(source);
      const found = await gitSource.readObject(revision, objectKey, cluster);
      if (!found) return undefined;
      const rules = await placement.rules(source, gitSource, revision);
      if (!rules.targets(found.object, found.path, clusters).includes(cluster)) return undefined;
      return { object: found.object, path: found.path, line: found.line, ...(found.unit ? { unit: found.unit } : {}) };
    },
  };
}
