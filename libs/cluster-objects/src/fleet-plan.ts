/** WantedCluster is a cluster as its Cluster object asks for it, with credentials that loaded. */
export interface WantedCluster {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** A hash of the credentials' content (never the credentials): a rotation changes it, a no-op edit of the Secret does not. */
  readonly fingerprint: string;
}

/** FleetPlan is what turns the running Cluster-object clusters into the wanted ones. */
export interface FleetPlan {
  /** New clusters: connect, start their queue worker, watches and health, and route their objects to them. */
  readonly start: readonly WantedCluster[];
  /** Clusters whose credentials changed: stop and start again with the new ones (labels may change too). */
  readonly restart: readonly WantedCluster[];
  /** Same credentials, other labels: placement is evaluated again; nothing reconnects. */
  readonly relabel: readonly WantedCluster[];
  /** Clusters no Cluster object asks for any more (or whose credentials no longer load): stop them. */
  readonly stop: readonly string[];
  /** Names a config-file cluster already has: never started, their Cluster says so. */
  readonly clashes: readonly string[];
}

/**
 * planFleet compares the wanted clusters with the running ones, by name. A name a config-file
 * cluster has is a clash and wins nothing: the config-file cluster keeps running as it was.
 * Pure, so every transition is tested without a cluster.
 */
export function planFleet(wanted: readonly WantedCluster[], running: ReadonlyMap<string, WantedCluster>, configNames: ReadonlySet<string>): FleetPlan {
  const start: WantedCluster[] = [];
  const restart: WantedCluster[] = [];
  const relabel: WantedCluster[] = [];
  const clashes: string[] = [];
  const kept = new Set<string>();
  for (const cluster of wanted) {
    if (configNames.has(cluster.name)) {
      clashes.push(cluster.name);
      continue;
    }
    kept.add(cluster.name);
    const now = running.get(cluster.name);
    if (!now) start.push(cluster);
    else if (now.fingerprint !== cluster.fingerprint) restart.push(cluster);
    else if (!sameLabels(now.labels, cluster.labels)) relabel.push(cluster);
  }
  const stop = [...running.keys()].filter((name) => !kept.has(name));
  return { start, restart, relabel, stop, clashes };
}

/** sameLabels is true when both have the same keys with the same values, in any order. */
export function sameLabels(left: Readonly<Record<string, string>>, right: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => Object.hasOwn(right, key) && right[key] === left[key]);
}
