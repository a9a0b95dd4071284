import type { ApiClient } from './api-client';
import type { ObjectPage, ObjectRow } from './api-types';
import { CliError, ExitCode } from './cli-error';

/** ObjectKeyParts are the four parts of an object key, as the API's paths take them. */
export interface ObjectKeyParts { group: string; kind: string; namespace: string; name: string }

const part = /^[A-Za-z0-9._:-]{1,253}$/;

/** parseObjectKey splits `group/Kind/namespace/name` ('core' group, '_' namespace for cluster-scoped). */
export function parseObjectKey(key: string): ObjectKeyParts | undefined {
  const parts = key.split('/');
  if (parts.length !== 4 || !parts.every((piece) => part.test(piece))) return undefined;
  const [group, kind, namespace, name] = parts as [string, string, string, string];
  return { group, kind, namespace, name };
}

/** objectPath is the API path of an object on a cluster. */
export function objectPath(cluster: string, key: ObjectKeyParts): string {
  return ['', 'objects', cluster, key.group, key.kind, key.namespace, key.name].map(encodeURIComponent).join('/');
}

/**
 * resolveObject turns what a person typed into one object: a full key (`apps/Deployment/shop/web`),
 * `Kind/namespace/name` or `Kind/name`. A short form is looked up in the status (exact kind and
 * name); more than one match is an error that lists them.
 */
export async function resolveObject(api: ApiClient, typed: string): Promise<ResolvedObject> {
  const full = parseObjectKey(typed);
  if (full) return { key: full, objectKey: typed };
  const parts = typed.split('/');
  if (parts.length < 2 || parts.length > 3 || !parts.every((piece) => part.test(piece))) {
    throw new CliError('ObjectInvalid', `"${typed.slice(0, 300)}" names no object; write Kind/name, Kind/namespace/name or group/Kind/namespace/name`, ExitCode.Usage);
  }
  const [kind, namespace, name] = parts.length === 3 ? parts as [string, string, string] : [parts[0]!, undefined, parts[1]!];
  const page = await api.get<ObjectPage>('/objects', { kind, namespace, q: name, pageSize: 500 });
  const matches = page.rows.filter((row) => row.name === name && row.kind.toLowerCase() === kind.toLowerCase());
  if (matches.length === 0) throw new CliError('NotFound', `no ${kind} named ${name}${namespace ? ` in namespace ${namespace}` : ''} is known to Tidemark`);
  if (matches.length > 1) throw new CliError('Ambiguous', `${typed} matches ${matches.length} objects: ${matches.map((row) => row.objectKey).join(', ')}; name one by its key`, ExitCode.Usage);
  return fromRow(matches[0]!);
}

/** ResolvedObject is one object's key, and the clusters it is on when the lookup learnt them. */
export interface ResolvedObject { key: ObjectKeyParts; objectKey: string; clusters?: string[] }

function fromRow(row: ObjectRow): ResolvedObject {
  // The row's group is '' for the core group; its objectKey spells it as the API paths do.
  const key = parseObjectKey(row.objectKey);
  if (!key) throw new CliError('BadResponse', `the dashboard listed an object with an unreadable key: ${row.objectKey.slice(0, 300)}`);
  return { key, objectKey: row.objectKey, clusters: Object.keys(row.cells).sort() };
}

/** clustersOfObject lists the clusters an object is on: known from the lookup, or asked of each cluster. */
export async function clustersOfObject(api: ApiClient, object: ResolvedObject): Promise<string[]> {
  if (object.clusters) return object.clusters;
  // A full key: ask any cluster's record for the list of clusters that hold the object.
  const overview = await api.get<{ clusters: Array<{ name: string }> }>('/clusters');
  for (const { name } of overview.clusters) {
    const found = await api.get<{ clusters: string[] }>(objectPath(name, object.key)).catch((error: unknown) => {
      if (error instanceof CliError && error.code === 'NotFound') return undefined;
      throw error;
    });
    if (found) return found.clusters;
  }
  throw new CliError('NotFound', `${object.objectKey} is on no cluster`);
}
