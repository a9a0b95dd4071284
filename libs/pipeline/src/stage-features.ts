import type { ReconcileRun } from './run';

/** featuresStage asks the kind which feature plugins this object turns on. */
export async function featuresStage(run: ReconcileRun): Promise<void> {
  run.stage = 'features';
  if (!run.plugin || !run.defaulted) return;
  run.features = run.plugin.enabledFeatures(run.defaulted.spec as never);
}
