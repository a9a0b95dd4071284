import type { ApiClient } from '../api-client';
import type { ActionResult } from '../api-types';
import { CliError, ExitCode } from '../cli-error';
import { clustersOfObject, objectPath, resolveObject } from '../object-ref';
import { printJson, type Output } from '../output';

export type ObjectVerb = 'reconcile' | 'suspend' | 'resume';

/**
 * objectActionCommand reconciles, suspends or resumes one object on a cluster, or on every
 * cluster it is on when --cluster is absent (POST /api/objects/…/<verb>; needs the operator role).
 */
export async function objectActionCommand(api: ApiClient, output: Output, verb: ObjectVerb, typed: string, cluster?: string): Promise<void> {
  const object = await resolveObject(api, typed);
  const clusters = cluster ? [cluster] : await clustersOfObject(api, object);
  if (clusters.length === 0) throw new CliError('ClusterRequired', `name the cluster with --cluster for ${typed}`, ExitCode.Usage);
  const results: ActionResult[] = [];
  for (const name of clusters) results.push(await api.post<ActionResult>(`${objectPath(name, object.key)}/${verb}`));
  writeResults(output, results);
}

/** retryCommand retries failed and stalled objects of a cluster, or one object (POST /api/queue/:cluster/retry). */
export async function retryCommand(api: ApiClient, output: Output, cluster: string, typed?: string): Promise<void> {
  const objectKey = typed ? (await resolveObject(api, typed)).objectKey : undefined;
  const path = `/queue/${encodeURIComponent(cluster)}/retry${objectKey ? `?objectKey=${encodeURIComponent(objectKey)}` : ''}`;
  writeResults(output, [await api.post<ActionResult>(path)]);
}

function writeResults(output: Output, results: ActionResult[]): void {
  if (output.format === 'json') return printJson(output, results);
  for (const result of results) {
    const what = result.objectKey ?? 'failed and stalled objects';
    const detail = result.retried !== undefined ? `${result.retried} retried` : result.queue ? `queue: ${result.queue}` : result.suspended !== undefined ? (result.suspended ? 'suspended' : 'resumed') : 'done';
    output.write(`${result.action} ${what} on ${result.cluster}: ${detail}\n`);
  }
}
