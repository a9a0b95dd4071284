/** ApiResource is what discovery says about a kind: where it lives and whether it is namespaced. */
export interface ApiResource {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  /** Whether the kind serves a /status subresource (a CRD may not). */
  hasStatusSubresource: boolean;
}

/** resourcePath builds the REST path of a collection (no name) or one object. */
export function resourcePath(resource: ApiResource, namespace: string | undefined, name?: string, subresource?: string): string {
  const base = resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  const scope = resource.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const object = name ? `/${encodeURIComponent(name)}` : '';
  const sub = name && subresource ? `/${subresource}` : '';
  return `${base}${scope}/${resource.plural}${object}${sub}`;
}

/** splitApiVersion returns the group ('' for core) and version of an apiVersion. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}
