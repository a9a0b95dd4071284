import { TerminalError, type KubernetesManifest } from '@tidemark/contracts';
import { ApiError, applyObject, cleanApiMessage, toReconcileFailure } from '@tidemark/cluster';
import { parseCustomResource, type CustomResource } from '@tidemark/kinds';
import type { ReconcileRun } from './run';
import type { PipelineDependencies } from './dependencies';
import { checkBuiltinCrdConflict } from './builtin-crd-conflict';
import { cleanupFinalizer, ownerOfRun, withOwner } from './tracking';
import { subjectOf } from './subject';
import { appliedBefore } from './applied-versions';

/**
 * ValidatedResource is the defaulted CR, and the dry-run that validated it (apply reuses it);
 * no dry-run when this very CR was applied to the live version before (appliedBefore).
 */
export interface ValidatedResource {
  resource: CustomResource;
  dryRun?: { object: KubernetesManifest; warnings: string[] };
}

/**
 * validateStage runs a server-side dry-run of the CR against its CRD, so the API server itself
 * enforces the OpenAPI schema and CEL rules, then parses it into its kind's spec type and fills
 * in the kind's defaults: the CR that features, render and act read. The dry-run's result goes
 * with it, so the apply stage does not dry-run the same CR a second time. A CR whose last apply
 * left the live CR at the version it still has is not dry-run: the API server took this very
 * object then, and with validation ratcheting an unchanged object passes a changed CRD too.
 * Plain manifests are validated by the apply stage's own dry-run (undefined here).
 */
export async function validateStage(run: ReconcileRun, deps: PipelineDependencies): Promise<ValidatedResource | undefined> {
  run.stage = 'validate';
  checkBuiltinCrdConflict(run, deps);
  if (!run.plugin || !run.object) return undefined;
  const applied = customResourceToApply(run);
  const unchanged = run.live !== undefined && appliedBefore(run.previous)(applied, run.live) !== undefined;
  const dryRun = unchanged ? undefined : await dryRunCustomResource(run, applied);
  const parsed = parseCustomResource(run.plugin, run.object, run.desired?.path ?? 'Git');
  return { resource: { ...parsed, spec: run.plugin.applyDefaults(parsed.spec) }, ...(dryRun ? { dryRun } : {}) };
}

/** dryRunCustomResource has the API server check the CR (schema, CEL); an invalid CR is a terminal failure naming its file. */
async function dryRunCustomResource(run: ReconcileRun, applied: KubernetesManifest): Promise<NonNullable<ValidatedResource['dryRun']>> {
  const warnings: string[] = [];
  try {
    return { object: await applyObject(run.connection, applied, { dryRun: true, warnings }), warnings };
  } catch (error) {
    const failure = toReconcileFailure(error, `validate ${subjectOf(run)}`);
    if (failure instanceof TerminalError && failure.category === 'invalid' && error instanceof ApiError) {
      throw new TerminalError('ValidationFailed',
        `${run.desired?.path ?? 'Git'}: ${subjectOf(run)} is invalid: ${cleanApiMessage(error.body.message ?? error.message)}. Fix it in Git; it is not retried until its spec changes.`,
        { cause: error, ...(failure.detail ? { detail: failure.detail } : {}) });
    }
    throw failure;
  }
}

/**
 * customResourceToApply is the CR as Git declares it, plus Tidemark's cleanup finalizer and
 * owner annotation (so a change to the CR in the cluster wakes it, like its owned objects).
 */
export function customResourceToApply(run: ReconcileRun): KubernetesManifest {
  const object = withOwner(run.object!, ownerOfRun(run));
  const finalizers = [...new Set([...(object.metadata.finalizers ?? []), cleanupFinalizer])];
  return { ...object, metadata: { ...object.metadata, finalizers } };
}
