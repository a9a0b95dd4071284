import { parseObjectKey } from '@tidemark/contracts';
import { DashboardError, ErrorCode } from './dashboard-error';
import type { ObjectKeyParams } from './schemas';

/** objectKeyOf turns route params back into an object key, refusing what is not one. */
export function objectKeyOf(params: ObjectKeyParams): string {
  const key = [params.group, params.kind, params.namespace, params.name].join('/');
  try {
    parseObjectKey(key);
  } catch {
    throw new DashboardError(ErrorCode.BadRequest, 400, `"${key}" is not an object key (group/kind/namespace/name).`);
  }
  return key;
}

/** objectPath is the URL path part of an object: cluster, then its key. */
export function objectPath(cluster: string, objectKey: string): string {
  return [cluster, ...objectKey.split('/')].map(encodeURIComponent).join('/');
}
