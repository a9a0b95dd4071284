import { TerminalError, isReconcileFailure, messageOf, type KubernetesManifest } from '@tidemark/contracts';
import type { CustomResource } from '@tidemark/kinds';
import { prevented } from '../gates/stage-gates';
import type { ReconcileRun } from '../run';
import { hookRunObject } from '../ordering/stage-hooks';
import { ownerOfRun, withOwner } from './tracking';

/**
 * renderStage produces the owned objects: for a kind, its base manifests changed by each
 * feature through the merge managers, then spec.override; for a plain manifest, itself; for a
 * sync hook, its run at this revision (under the run's name), or nothing once it needs none.
 * Every rendered object is labelled as Tidemark's and annotated with the Git object it came from;
 * when the run is prevented (preventionCheck), also labelled for the admission policy (a hook's
 * run never is: it is never drift).
 */
export function renderStage(run: ReconcileRun, defaulted: CustomResource | undefined, features: readonly string[]): KubernetesManifest[] {
  run.stage = 'render';
  const owner = ownerOfRun(run);
  if (run.hookState) return run.object && !run.hookState.verdict ? [withOwner(hookRunObject(run.object, run.hookState), owner)] : [];
  if (!run.plugin || !defaulted) return run.object ? [prevented(run, withOwner(run.object, owner))] : [];
  const object = defaulted;
  try {
    const rendered = run.plugin.render({ object, features });
    return rendered.map((child) => prevented(run, withOwner({
      ...child,
      metadata: { ...child.metadata, namespace: child.metadata.namespace ?? object.metadata.namespace },
    }, owner)));
  } catch (error) {
    if (isReconcileFailure(error)) throw error;
    throw new TerminalError('RenderFailed', `rendering ${object.kind} ${object.metadata.name} failed: ${messageOf(error)}`, { cause: error });
  }
}

/** featuresStage asks the kind which feature plugins this object turns on (none for a plain manifest). */
export function featuresStage(run: ReconcileRun, defaulted: CustomResource | undefined): string[] {
  run.stage = 'features';
  if (!run.plugin || !defaulted) return [];
  return run.plugin.enabledFeatures(defaulted.spec);
}

