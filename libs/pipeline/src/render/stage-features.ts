import type { CustomResource } from '@tidemark/kinds';
import type { ReconcileRun } from '../run';

/** featuresStage asks the kind which feature plugins this object turns on (none for a plain manifest). */
export function featuresStage(run: ReconcileRun, defaulted: CustomResource | undefined): string[] {
  run.stage = 'features';
  if (!run.plugin || !defaulted) return [];
  return run.plugin.enabledFeatures(defaulted.spec);
}
