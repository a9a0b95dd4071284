/** ObjectRef names one Kubernetes object: its API group, kind, namespace and name. */
export interface ObjectRef {
  /** API group; '' for the core group (v1). */
  group: string;
  kind: string;
  /** '' for cluster-scoped objects. */
  namespace: string;
  name: string;
}

const coreGroup = 'core';
const noNamespace = '_';

/**
 * formatObjectKey gives the stable identity of an object, `group/kind/namespace/name`,
 * with `core` for the core group and `_` for no namespace. Versions are not part of it:
 * the same object served under two versions is one object.
 */
export function formatObjectKey(ref: ObjectRef): string {
  return [ref.group || coreGroup, ref.kind, ref.namespace || noNamespace, ref.name].join('/');
}

/** parseObjectKey reverses formatObjectKey; it throws on a string that is not a key. */
export function parseObjectKey(key: string): ObjectRef {
  const parts = key.split('/');
  if (parts.length !== 4 || parts.some((part) => part.length === 0)) {
    throw new Error(`"${key}" is not an object key; expected group/kind/namespace/name`);
  }
  const [group, kind, namespace, name] = parts as [string, string, string, string];
  return {
    group: group === coreGroup ? '' : group,
    kind,
    namespace: namespace === noNamespace ? '' : namespace,
    name,
  };
}

/** groupOf returns the API group of an apiVersion such as `apps/v1` ('' for `v1`). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * describeObject names an object the way messages do, `Kind namespace/name` (or `Kind name`
 * when cluster-scoped): never an internal key such as `core/Service/_/web`.
 */
export function describeObject(ref: Pick<ObjectRef, 'kind' | 'namespace' | 'name'>): string {
  return `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
}
