import type { ChangeSetEntry } from '@tidemark/cluster';
import type { AppliedResource } from '@tidemark/contracts';
import { healthOf, type HealthRule } from '@tidemark/kinds';

/** Resources kept per record: a WebApp renders a handful; a huge render keeps its first ones. */
const maxResources = 100;

/**
 * appliedResources lists what this run applied, with the apply's action and each object's
 * health, for the dashboard's resource tree. A plain manifest lists itself.
 */
export function appliedResources(changes: readonly ChangeSetEntry[], rules?: readonly HealthRule[]): AppliedResource[] {
  return changes.filter((entry) => entry.action !== 'deleted').slice(0, maxResources).map((entry) => {
    const { object } = entry;
    const health = healthOf(object, rules);
    const resource: AppliedResource = {
      apiVersion: object.apiVersion, kind: object.kind, namespace: object.metadata.namespace ?? '', name: object.metadata.name,
      action: entry.action as AppliedResource['action'], health: health.status, message: health.message,
    };
    if (typeof object.metadata.uid === 'string') resource.uid = object.metadata.uid;
    return resource;
  });
}
