import { RenderFailure } from './render-failure';

/** ClusterValues are what a cluster hands to a unit rendered for it: its name, labels and variables. */
export interface ClusterValues {
  name: string;
  labels: Readonly<Record<string, string>>;
  /** From the cluster's config, overlaid by the variables of the Placement rule that sent the unit there. */
  variables: Readonly<Record<string, string>>;
}

const reference = /\$\{cluster\.(name|labels\.[A-Za-z0-9_./-]+|variables\.[A-Za-z0-9_.-]+)\}/g;

/** usesClusterValues tells whether a text names any `${cluster.…}` value. */
export function usesClusterValues(text: string): boolean {
  return new RegExp(reference.source).test(text);
}

/**
 * substituteClusterValues replaces `${cluster.name}`, `${cluster.labels.KEY}` and
 * `${cluster.variables.KEY}` in a string. A name the cluster does not set is an error naming
 * `where`, never an empty string: a Deployment with an empty image tag is worse than none.
 */
export function substituteClusterValues(text: string, cluster: ClusterValues, where: string): string {
  return text.replace(reference, (_match, path: string) => {
    if (path === 'name') return cluster.name;
    const [scope, ...rest] = path.split('.');
    const key = rest.join('.');
    const value = scope === 'labels' ? cluster.labels[key] : cluster.variables[key];
    if (value === undefined) {
      throw new RenderFailure('RenderConfigInvalid', `${where} uses \${cluster.${path}}, which cluster ${cluster.name} does not set; add it to the cluster's ${scope} or to its Placement rule's variables`);
    }
    return value;
  });
}

/** substituteDeep applies substituteClusterValues to every string inside a parsed value. */
export function substituteDeep(value: unknown, cluster: ClusterValues, where: string): unknown {
  if (typeof value === 'string') return substituteClusterValues(value, cluster, where);
  if (Array.isArray(value)) return value.map((item) => substituteDeep(item, cluster, where));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteDeep(item, cluster, where)]));
  }
  return value;
}
