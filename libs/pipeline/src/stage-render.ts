import { TerminalError, isReconcileFailure } from '@tidemark/contracts';
import type { ReconcileRun } from './run';
import { ownerOfRun, withOwner } from './tracking';

/**
 * renderStage produces the owned objects: for a kind, its base manifests changed by each
 * feature through the merge managers, then spec.override; for a plain manifest, itself.
 * Every rendered object is labelled as Tidemark's and annotated with the Git object it came from.
 */
export async function renderStage(run: ReconcileRun): Promise<void> {
  run.stage = 'render';
  const owner = ownerOfRun(run);
  if (!run.plugin) {
    run.rendered = run.object ? [withOwner(run.object, owner)] : [];
    return;
  }
  const object = run.defaulted!;
  try {
    const rendered = run.plugin.render({ object: object as never, features: run.features });
    run.rendered = rendered.map((child) => withOwner({
      ...child,
      metadata: { ...child.metadata, namespace: child.metadata.namespace ?? object.metadata.namespace },
    }, owner));
  } catch (error) {
    if (isReconcileFailure(error)) throw error;
    throw new TerminalError('RenderFailed', `rendering ${object.kind} ${object.metadata.name} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
