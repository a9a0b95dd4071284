import { isPlainObject, type PlainObject } from '../shared/plain-object';

/**
 * undescribedFields lists the fields of an OpenAPI schema that have no description, so
 * `kubectl explain` would show them bare. Array items and map values are described by their
 * field; `metadata` is described by Kubernetes.
 */
export function undescribedFields(schema: PlainObject, path = ''): string[] {
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const found: string[] = [];
  for (const [name, child] of Object.entries(properties)) {
    if (!isPlainObject(child) || (path === '' && name === 'metadata')) continue;
    const childPath = path ? `${path}.${name}` : name;
    if (typeof child.description !== 'string' || child.description.trim() === '') found.push(childPath);
    found.push(...undescribedFields(child, childPath));
    if (isPlainObject(child.items)) found.push(...undescribedFields(child.items, `${childPath}[]`));
    if (isPlainObject(child.additionalProperties)) found.push(...undescribedFields(child.additionalProperties, `${childPath}{}`));
  }
  return found;
}
