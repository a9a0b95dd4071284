import { TerminalError, type KubernetesManifest } from '@tidemark/contracts';
import { ApiError, applyObject, toReconcileFailure } from '@tidemark/cluster';
import type { ReconcileRun } from './run';
import { cleanupFinalizer, ownerOfRun, withOwner } from './tracking';

/**
 * validateStage runs a server-side dry-run of the CR against its CRD, so the API server itself
 * enforces the OpenAPI schema and CEL rules, then fills in the kind's defaults for render.
 * Plain manifests are validated by the apply stage's own dry-run.
 */
export async function validateStage(run: ReconcileRun): Promise<void> {
  run.stage = 'validate';
  if (!run.plugin || !run.object) return;
  const applied = customResourceToApply(run);
  try {
    await applyObject(run.connection, applied, { dryRun: true });
  } catch (error) {
    if (error instanceof ApiError && (error.status === 422 || error.status === 400)) {
      throw new TerminalError('ValidationFailed',
        `${run.desired?.path ?? 'Git'}: ${run.object.kind} ${run.object.metadata.name} is invalid: ${error.body.message ?? error.message}. Fix it in Git; it is not retried until its spec changes.`,
        { cause: error });
    }
    throw toReconcileFailure(error, `validate ${run.job.objectKey}`);
  }
  const spec = (run.object.spec ?? {}) as never;
  run.defaulted = { ...run.object, spec: run.plugin.applyDefaults(spec) };
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
