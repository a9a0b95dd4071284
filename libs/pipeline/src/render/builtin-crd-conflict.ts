import { TerminalError, groupOf } from '@tidemark/contracts';
import type { PipelineDependencies, PipelineOptions } from '../dependencies';
import type { ReconcileRun } from '../run';

/**
 * checkBuiltinCrdConflict refuses a Git object that declares the CRD of a built-in kind:
 * Tidemark installs and keeps those CRDs itself, and one from Git would replace it for every
 * object of that kind in the cluster. Nothing is applied from such an object unless its source
 * is allowed to manage that CRD (`manageBuiltinCrds` in the source's config).
 */
export function checkBuiltinCrdConflict(run: ReconcileRun, deps: { kinds: Pick<PipelineDependencies['kinds'], 'list'>; options?: Pick<PipelineOptions, 'builtinCrdSources'> }): void {
  const object = run.object;
  if (!object || object.kind !== 'CustomResourceDefinition' || groupOf(object.apiVersion) !== 'apiextensions.k8s.io') return;
  const builtin = deps.kinds.list().find((plugin) => plugin.crd.metadata.name === object.metadata.name);
  if (!builtin) return;
  if (deps.options?.builtinCrdSources?.[object.metadata.name]?.includes(run.job.source)) return;
  const where = run.desired ? `${run.desired.path}${run.desired.line ? `:${run.desired.line}` : ''}` : 'Git';
  throw new TerminalError('Conflict',
    `CustomResourceDefinition ${object.metadata.name} (${where}) is the CRD of Tidemark's built-in kind ${builtin.kind} (${builtin.group}/${builtin.version}), ` +
    `which Tidemark installs and keeps itself; nothing is applied from this file. Remove it from Git, or allow source ${run.job.source} to manage it ` +
    `with manageBuiltinCrds: [${object.metadata.name}] in its source config.`);
}
