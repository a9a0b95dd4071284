import { isPlacementKey, isPlacementObject, PlacementRules } from '@tidemark/placement';
import { messageOf, type KubernetesManifest } from '@tidemark/contracts';
import type { RevisionIndex } from './revision-index';
import type { UnitPlacement } from './unit-index';

/**
 * placementOf reads the Placement rules among a revision's plain files, for the units rendered
 * per cluster. A Placement that cannot be read stops those units (not the others): rendering them
 * for the wrong clusters, or with missing variables, is worse than waiting for a fix. Placement
 * objects a unit renders do not count here: they exist only after the render they would steer.
 */
export function placementOf(index: RevisionIndex): UnitPlacement {
  const objects: KubernetesManifest[] = [];
  for (const key of index.keys()) {
    if (!isPlacementKey(key)) continue;
    const found = index.lookup(key);
    if (found && 'error' in found) return { error: found.error.message };
    if (!found || found.object.unit || !isPlacementObject(found.object.manifest.apiVersion, found.object.manifest.kind)) continue;
    objects.push(found.object.manifest);
  }
  if (objects.length === 0) return { rules: PlacementRules.none() };
  try {
    return { rules: PlacementRules.fromObjects(objects) };
  } catch (error) {
    return { error: messageOf(error) };
  }
}
