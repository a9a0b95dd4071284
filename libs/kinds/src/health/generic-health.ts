import type { Health, KubernetesManifest } from '../kind-plugin';
import { conditionMessage, conditionOf, describe, generationLag } from './status-fields';

/**
 * genericHealth judges kinds without a rule, following the conventions most controllers
 * share (kstatus): a lagging observedGeneration is progress, Stalled=True is a failure,
 * Ready says the rest. An object with none of these is ready once applied.
 */
export function genericHealth(live: KubernetesManifest): Health {
  const lag = generationLag(live);
  if (lag) {
    return lag;
  }
  const name = describe(live);
  const stalled = conditionOf(live, 'Stalled');
  if (stalled?.status === 'True') {
    return { status: 'Failed', message: `${name} is stalled${conditionMessage(stalled)}.` };
  }
  const ready = conditionOf(live, 'Ready');
  if (ready?.status === 'True') {
    return { status: 'Ready', message: `${name} is ready.` };
  }
  if (ready) {
    // Ready=False usually means "not yet" (kstatus reads it as in progress); Stalled marks failure.
    return { status: 'Progressing', message: `${name} is not ready${conditionMessage(ready)}.` };
  }
  return { status: 'Ready', message: `${name} is applied.` };
}
