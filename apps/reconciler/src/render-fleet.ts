import { CapabilitiesCache } from '@tidemark/cluster';
import type { ClusterRegistry } from '@tidemark/cluster-objects';
import type { Logger } from '@tidemark/contracts';
import type { Poller } from '@tidemark/poller';
import type { ClusterValues } from '@tidemark/render';

/**
 * FleetCapabilities is the capabilities cache whose generation also counts changes to the set of
 * clusters (a Cluster object added, relabelled or removed): an index rendered before such a change
 * is built again, so a per-cluster unit renders for the clusters there are now, with their labels.
 */
export class FleetCapabilities extends CapabilitiesCache {
  private fleetChanges = 0;

  override get generation(): number {
    return super.generation + this.fleetChanges;
  }

  /** clustersChanged marks every index rendered so far as stale. */
  clustersChanged(): void {
    this.fleetChanges += 1;
  }
}

/** RenderFleet is the part of the unit rendering that follows the registry. */
export interface RenderFleet {
  /** The clusters units render for: a live array the sources' renderings share, changed in place. */
  clusters: ClusterValues[];
  capabilities: FleetCapabilities;
}

/** RenderFleetOptions: the registry, each config-file cluster's variables, and who to wake. */
export interface RenderFleetOptions {
  registry: Pick<ClusterRegistry, 'targets' | 'onChange'>;
  /** Config-file clusters' `variables`; a Cluster object has none of its own (its Placement rule's apply). */
  variables: ReadonlyMap<string, Readonly<Record<string, string>>>;
  sources: () => Iterable<string>;
  poller: Pick<Poller, 'trigger'> | undefined;
  log: Logger;
}

/** clusterValuesOf is what each registered cluster hands a unit rendered for it: name, labels, and its config variables. */
export function clusterValuesOf(registry: Pick<ClusterRegistry, 'targets'>, variables: RenderFleetOptions['variables']): ClusterValues[] {
  return registry.targets.map((target) => ({ name: target.name, labels: target.labels, variables: variables.get(target.name) ?? {} }));
}

/**
 * followFleet keeps rendering in step with the clusters: when the registry changes, the clusters
 * units render for are read again from it (a Cluster object's labels, and its API server through
 * the capabilities cache: Helm's .Capabilities.KubeVersion), every index is marked stale, and a
 * poller polls every source so its units render for the new fleet. Returns the stop.
 */
export function followFleet(fleet: RenderFleet | undefined, options: RenderFleetOptions): () => void {
  if (!fleet) return () => undefined;
  return options.registry.onChange((change) => {
    fleet.clusters.splice(0, fleet.clusters.length, ...clusterValuesOf(options.registry, options.variables));
    fleet.capabilities.clustersChanged();
    options.log.info({ cluster: change.cluster.name, change: change.type }, 'units render again for the clusters there are now');
    for (const source of options.sources()) void options.poller?.trigger(source).catch(() => undefined);
  });
}
