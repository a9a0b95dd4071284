import { TerminalError } from '@tidemark/contracts';
import type { GitSource } from '@tidemark/git-source';
import type { DesiredObject, DesiredStateReader } from '@tidemark/pipeline';

/** gitDesiredState reads desired objects from this process's own Git sources. */
export function gitDesiredState(sources: ReadonlyMap<string, GitSource>): DesiredStateReader {
  return {
    async readObject(source, revision, objectKey): Promise<DesiredObject | undefined> {
      const gitSource = sources.get(source);
      if (!gitSource) throw new TerminalError('UnknownSource', `job names source "${source}", which is not configured; add it to the config or drop the job.`);
      const found = await gitSource.readObject(revision, objectKey);
      if (!found) return undefined;
      return { object: found.object as DesiredObject['object'], path: found.path, line: found.line };
    },
  };
}
