/**
 * Resources the API server stores once and serves under two groups (kube-apiserver's
 * "cohabitating resources"): a Deployment written as `extensions/v1beta1` is the `apps` one.
 */
const cohabiting: Readonly<Record<string, string>> = Object.freeze({
  'extensions/deployments': 'apps/deployments',
  'extensions/daemonsets': 'apps/daemonsets',
  'extensions/replicasets': 'apps/replicasets',
  'extensions/networkpolicies': 'networking.k8s.io/networkpolicies',
  'extensions/ingresses': 'networking.k8s.io/ingresses',
  'extensions/podsecuritypolicies': 'policy/podsecuritypolicies',
  'events.k8s.io/events': '/events',
});

/** LiveTarget is a live object as discovery resolves it: its resource, its scope and its name. */
export interface LiveTarget {
  group: string;
  plural: string;
  namespaced: boolean;
  /** As written; '' when Git left it out. Ignored for a cluster-scoped resource. */
  namespace: string;
  name: string;
}

/** canonicalResource names a resource the same way under either of its groups: `apps/deployments`. */
export function canonicalResource(group: string, plural: string): string {
  const resource = `${group}/${plural}`;
  return cohabiting[resource] ?? resource;
}

/**
 * liveIdentity is the one name of a live object, whatever the spelling in Git: the resource under
 * its canonical group, the namespace (the default one when left out, none for a cluster-scoped
 * resource) and the name. Two declarations with one identity write one object.
 */
export function liveIdentity(target: LiveTarget, defaultNamespace: string): string {
  const namespace = target.namespaced ? target.namespace || defaultNamespace : '';
  return `${canonicalResource(target.group, target.plural)}/${namespace}/${target.name}`;
}

/**
 * guessPlural is the resource name of a kind the cluster does not serve (an `extensions` kind
 * long removed), guessed the way Kubernetes' own client does when it has no discovery.
 */
export function guessPlural(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower.endsWith('s') || lower.endsWith('x') || lower.endsWith('z') || lower.endsWith('ch') || lower.endsWith('sh')) return `${lower}es`;
  if (lower.endsWith('y') && !/[aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}
