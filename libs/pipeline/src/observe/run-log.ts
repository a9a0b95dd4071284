import type { Logger } from '@tidemark/contracts';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';

/**
 * withRunLog gives the stages a logger that adds the object key, cluster, source, revision and
 * current stage to every line, so any line can be traced to one run without each stage
 * repeating them. The stage is read when the line is written, not when the run starts.
 */
export function withRunLog(run: ReconcileRun, deps: PipelineDependencies): PipelineDependencies {
  const log = deps.log;
  if (!log) return deps;
  const context = () => ({ objectKey: run.job.objectKey, cluster: run.job.cluster, source: run.job.source, revision: run.job.revision, stage: run.stage });
  const scoped: Logger = {
    info: (fields, message) => log.info({ ...context(), ...fields }, message),
    warn: (fields, message) => log.warn({ ...context(), ...fields }, message),
  };
  return { ...deps, log: scoped };
}
